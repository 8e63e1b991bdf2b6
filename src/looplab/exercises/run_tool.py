"""Lesson 07's checker: a `run_tool` that answers every call and never raises.

    check_run_tool(run_tool)

`run_tool(block, tools) -> tool_result`: `block` is one `tool_use` block of
`response.content` (`.id`, `.name`, `.input`); `tools` maps each name to a `@looplab.tool`
(call it with the input; its `.input_schema` says what input fits). Who can fix a failure
decides its text, by where it was raised:

- before the tool runs: an unknown name, or input that does not fit `input_schema` (the
  model's mistake; the tool's code must not run);
- inside the tool, on purpose: a `ToolError`, whose text goes back as it is;
- inside the tool, unplanned: any other exception, sent as `"Type: message"`.

Every one of them is answered with `"is_error": True`; a call that works gets its output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.loop import MODEL
from ..core.tools import Tool, ToolError, tool
from ..fake import ScriptedModel, call, fake_client, say
from ..i18n import Message, _
from ..lessons.demo import demo_tools, task
from .common import create, first_problem, name_of, raised, text_of
from .scorecard import Check, Scorecard, verdict

NAMES = [
    Message("never raises"),
    Message("one tool_result per call, with its tool_use_id"),
    Message("a call that works: its output, not an error"),
    Message("ToolError: its own text, marked as an error"),
    Message("an exception from the tool's code: its type and message, marked as an error"),
    Message("input that does not fit input_schema: refused before the tool runs"),
    Message("an unknown tool: marked as an error, naming the tools there are"),
    Message("the API accepts the next request"),
]
CALLS = [
    call("read_file", path="login.py"),  # works
    call("read_file", path="../secrets.txt"),  # ToolError from the sandbox
    call("parse_version", text="2.x"),  # ValueError in the tool's own code
    call("parse_version", text=2.1),  # a number where the schema asks for a string
    call("search_logs", query="lockout"),  # offered to the model, but no code behind it
]
SEARCH_LOGS = {
    "name": "search_logs",
    "description": "Search the service logs for a word. Call it to find errors.",
    "input_schema": {"type": "object", "properties": {"query": {"type": "string"}},
                     "required": ["query"]},
}  # fmt: skip


def _tools(ran: list[Any]) -> dict[str, Tool]:
    _run_tests, read_file = demo_tools()

    @tool
    def parse_version(text: str) -> list[int]:
        """Split a version string like "2.10.1" into its numbers. Call it to compare versions."""
        ran.append(text)
        return [int(part) for part in text.split(".")]

    return {"read_file": read_file, "parse_version": parse_version}


def check_run_tool(fn: Callable[[Any, dict[str, Tool]], Any]) -> Scorecard:
    """Five parallel calls, four of which fail in different ways; one line per rule."""
    ran: list[Any] = []
    tools = _tools(ran)
    definitions = [t.definition() for t in tools.values()] + [SEARCH_LOGS]
    client = fake_client(ScriptedModel([CALLS, say("Thanks, I have what I need.")]),
                         max_retries=0)  # fmt: skip
    asked: dict[str, Any] = {"role": "user", "content": task()}
    request: dict[str, Any] = {"model": MODEL, "max_tokens": 1024, "tools": definitions}
    response = create(client, {**request, "messages": [asked]})
    blocks = [b for b in response.content if b.type == "tool_use"]
    card = Scorecard(f"check_run_tool({name_of(fn)})")
    outcomes: list[Any] = []
    for b in blocks:
        try:
            outcomes.append(fn(b, dict(tools)))
        except Exception as e:
            outcomes.append(e)
    errors = [(b, o) for b, o in zip(blocks, outcomes, strict=True) if isinstance(o, Exception)]
    if len(errors) == len(blocks) and len({raised(o) for _b, o in errors}) == 1:
        card.extend(Check(n, False, raised(errors[0][1])) for n in NAMES)  # the stub
        return card
    card.append(verdict(NAMES[0], not errors, "; ".join(
        _("it raised {error} for {call}").format(error=raised(o), call=f"{b.name}({b.input})")
        for b, o in errors)))
    card.extend(_judge(blocks, outcomes, tools, ran))
    sent: list[Any] = [asked, {"role": "assistant", "content": response.content},
            {"role": "user", "content": [o if isinstance(o, dict) else {} for o in outcomes]}]
    try:
        create(client, {**request, "messages": sent})
        card.append(Check(NAMES[7], True))
    except Exception as e:
        card.append(Check(NAMES[7], False, first_problem(sent, definitions) or raised(e)))
    return card


def _refusal(t: Tool, **given: Any) -> str:
    """The text of the `ToolError` that `t` raises for `given`, as this run's language says
    it: the model must read the tool's own words, whichever language they are in."""
    try:
        t(**given)
    except ToolError as e:
        return str(text_of(e.content))
    raise AssertionError(f"{t.name}({given}) was expected to raise a ToolError")  # our bug


def _judge(blocks: list[Any], outcomes: list[Any], tools: dict[str, Tool],
           ran: list[Any]) -> list[Check]:  # fmt: skip
    r = [o if isinstance(o, dict) else {} for o in outcomes]
    failed = [x.get("is_error") is True for x in r]
    text = [str(text_of(x.get("content"))) for x in r]
    ids_ok = ([x.get("type") for x in r] == ["tool_result"] * len(blocks)
              and [x.get("tool_use_id") for x in r] == [b.id for b in blocks])  # fmt: skip
    sandbox = _refusal(tools["read_file"], path="../secrets.txt")  # in the run's language
    bad_input = (_("parse_version's code ran with text=2.1, a number where its input_schema "
                   "asks for a string") if 2.1 in ran else
                 _("the result is not marked as an error, or does not say what the input "
                   "lacks"))
    return [
        verdict(NAMES[1], ids_ok, _("a result is not a tool_result, or its tool_use_id is not "
                                    "the id of its call")),
        verdict(NAMES[2], not failed[0] and text[0] == tools["read_file"](path="login.py"),
                _("read_file(path='login.py') came back marked as an error, or not as the text "
                  "the tool returned")),
        verdict(NAMES[3], failed[1] and text[1] == sandbox,
                _("the model read {text!r}, not the text of the ToolError").format(
                    text=text[1][:80])),
        verdict(NAMES[4], failed[2] and text[2].startswith("ValueError: "),
                _("the model read {text!r}: which exception was it, and is it marked as an "
                  "error?").format(text=text[2][:80])),
        verdict(NAMES[5], failed[3] and 2.1 not in ran and "string" in text[3], bad_input),
        verdict(NAMES[6], failed[4] and "read_file" in text[4] and "parse_version" in text[4],
                _("the model read {text!r}: which tools can it call instead?").format(
                    text=text[4][:80])),
    ]  # fmt: skip
