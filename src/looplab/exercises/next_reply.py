"""Lesson 10's checker: get a reply the loop can act on, through `pause_turn` and `max_tokens`.

    check_next_reply(next_reply)

`next_reply(client, messages, *, tools, max_tokens, max_tokens_cap) -> response` sends
`messages` and returns the reply the loop acts on, appending to `messages` (in place)
what belongs in the history:

- `pause_turn`: the server has not finished; the paused content goes back unchanged (no
  user message after it, the same tools), and the request is sent again;
- `max_tokens`: the reply was cut off and is not kept (a cut `tool_use` has cut input);
  the same messages are sent again with more room, up to `max_tokens_cap`; a reply still
  cut off at the cap is returned without being kept, for the loop to stop on;
- anything else: appended as it came, and returned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..fake import FunctionModel, Request, ScriptedModel, call, fake_client, pause, say, truncate
from ..fake.models import FakeModel
from ..history.dangling import _close_dangling
from ..history.rules import check_history
from ..i18n import Message, _
from .common import TASK, World, name_of, raised
from .scorecard import Check, Scorecard, verdict

WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search"}
START, CAP, ROOM_NEEDED = 1024, 8192, 4096
MAX_REQUESTS = 12
NAMES = [
    Message("end_turn: appended once, returned"),
    Message("pause_turn: sent back unchanged until the server finishes"),
    Message("max_tokens: the same messages again, with more room; the cut reply not kept"),
    Message("max_tokens at the cap: returned, not kept, no request above the cap"),
]
FULL = [say("I'll read the log."), call("read_file", path="logs/login.log")]
CUT = truncate(say("I'll read the"), call("read_file", path="lo"))
GIVE_UP = say("I give up.")


def _needs_room(request: Request) -> Any:
    """A reply that needs `ROOM_NEEDED` output tokens: cut off below that."""
    if request.number > MAX_REQUESTS:
        return GIVE_UP  # so a loop that never gives itself more room still ends
    return FULL if request.max_tokens >= ROOM_NEEDED else CUT


def _always_cut(request: Request) -> Any:
    return GIVE_UP if request.number > MAX_REQUESTS else CUT


def _ask(fn: Callable[..., Any], model: FakeModel) -> tuple[Any, list[Any], list[Any]]:
    """Call `fn` on a fresh history; (what it returned, the history, the requests sent)."""
    world = World([])
    tools = [*world.definitions, WEB_SEARCH]
    messages: list[Any] = [{"role": "user", "content": TASK}]
    client = fake_client(model, max_retries=0)
    response = fn(client, messages, tools=tools, max_tokens=START, max_tokens_cap=CAP)
    return response, messages, list(model.requests)


def _blocks(messages: list[Any]) -> list[Any]:
    """Every assistant block after the task, as plain dicts."""
    out = []
    for m in messages[1:]:
        for b in m["content"] if isinstance(m.get("content"), list) else []:
            out.append(b if isinstance(b, dict) else b.to_dict(mode="json"))
    return out


def _valid(messages: list[Any]) -> str | None:
    """The first error the API would answer the history with (an open call is allowed)."""
    errors = [v for v in check_history(_close_dangling(messages)) if v.severity == "error"]
    if not errors:
        return None
    return _("the history breaks a rule: {problem}").format(problem=errors[0].message)


def _few(values: list[int]) -> str:
    shown = ", ".join(f"{v:,}" for v in values[:5])
    return f"[{shown}{', …' if len(values) > 5 else ''}]"


def _stopped(response: Any) -> str:
    return _("returned a reply with stop_reason {value!r}").format(
        value=getattr(response, "stop_reason", None))


def _end_turn(fn: Callable[..., Any]) -> Check:
    response, messages, requests = _ask(fn, ScriptedModel([say("The lockout check is off.")]))
    problem = (
        _("sent {n} requests").format(n=len(requests)) if len(requests) != 1
        else _("returned a {type}, not the reply").format(type=type(response).__name__)
        if getattr(response, "stop_reason", None) != "end_turn"
        else _("the history grew by {n} messages").format(n=len(messages) - 1)
        if len(messages) != 2
        else _valid(messages)
    )  # fmt: skip
    return verdict(NAMES[0], problem is None, problem or "")


def _pause_turn(fn: Callable[..., Any]) -> Check:
    model = ScriptedModel([pause(say("Searching."), input={"query": "lockout bug"}),
                           pause(input={"query": "off by one lockout"}),
                           say("Nothing relevant online; the bug is in login.py.")])  # fmt: skip
    response, messages, requests = _ask(fn, model)
    problem = None
    for n, body in enumerate(requests[1:], 2):
        if body["messages"][-1]["role"] != "assistant" or body["tools"] != requests[0]["tools"]:
            problem = _("request {n} did not end with the paused reply, or did not carry the "
                        "same tools").format(n=n)  # fmt: skip
            break
    if problem is None and len(requests) != 3:
        problem = _("sent {n} requests; the server needed 3 to finish the turn").format(
            n=len(requests))
    if problem is None and getattr(response, "stop_reason", None) != "end_turn":
        problem = _stopped(response)
    if problem is None and [b["type"] for b in _blocks(messages)] != [
            "text", "server_tool_use", "server_tool_use", "text"]:
        problem = _("the history does not hold the paused content and the answer, in order")
    return verdict(NAMES[1], problem is None, problem or _valid(messages) or "")


def _max_tokens(fn: Callable[..., Any]) -> Check:
    response, messages, requests = _ask(fn, FunctionModel(_needs_room))
    room = [body["max_tokens"] for body in requests]
    problem = (
        _("the first request did not use max_tokens as given") if room[:1] != [START]
        else _("max_tokens went {values}: a retry with no more room gets the same cut").format(
            values=_few(room))
        if any(b <= a for a, b in zip(room, room[1:], strict=False))
        else _("a retry sent other messages than the cut request")
        if any(body["messages"] != requests[0]["messages"] for body in requests)
        else _stopped(response)
        if getattr(response, "stop_reason", None) != "tool_use"
        else _("the cut reply (or no reply at all) is in the history")
        if [b.get("input") for b in _blocks(messages) if b["type"] == "tool_use"]
        != [{"path": "logs/login.log"}]
        else None
    )  # fmt: skip
    return verdict(NAMES[2], problem is None, problem or _valid(messages) or "")


def _at_the_cap(fn: Callable[..., Any]) -> Check:
    response, messages, requests = _ask(fn, FunctionModel(_always_cut))
    room = [body["max_tokens"] for body in requests]
    problem = (
        _("max_tokens went {values}, above max_tokens_cap={cap}").format(
            values=_few(room), cap=CAP) if max(room) > CAP
        else _("max_tokens went {values}: it never tried the cap").format(values=_few(room))
        if room[-1] != CAP
        else _stopped(response)
        if getattr(response, "stop_reason", None) != "max_tokens"
        else _("the cut reply is in the history") if len(messages) != 1
        else None
    )  # fmt: skip
    return verdict(NAMES[3], problem is None, problem or "")


def check_next_reply(fn: Callable[..., Any]) -> Scorecard:
    """One scripted situation per rule; one line each."""
    card = Scorecard(f"check_next_reply({name_of(fn)})")
    for name, scenario in zip(NAMES, (_end_turn, _pause_turn, _max_tokens, _at_the_cap),
                              strict=True):  # fmt: skip
        try:
            card.append(scenario(fn))
        except Exception as e:
            card.append(Check(name, False, raised(e)))
    return card
