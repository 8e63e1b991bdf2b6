"""Lesson 13's checker: answer a turn's tool_use blocks by calling an MCP server.

    check_mcp_answer(answer_with_mcp)

`answer_with_mcp(content, call) -> message`: `content` is an assistant message's content
(blocks as dicts); `call(name, arguments)` sends MCP's `tools/call` and returns
`{"content": [text blocks], "isError": bool}`. Return the one user message that answers
every `tool_use`, in call order: a `tool_result` whose content is the result's text and
whose `is_error` is MCP's `isError`; a call that raises (the server went away) is answered
too, as an `is_error` result with the error's text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.loop import MODEL
from ..fake import ScriptedModel, fake_client, say
from ..i18n import Message, _
from .common import create, field_of, first_problem, name_of, raised, text_of
from .scorecard import Check, Scorecard, verdict

TURN: list[dict[str, Any]] = [
    {"type": "text", "text": "Let me look."},
    {"type": "tool_use", "id": "toolu_01", "name": "run_tests", "input": {"module": "login"}},
    {"type": "tool_use", "id": "toolu_02", "name": "read_file", "input": {"path": "../x"}},
    {"type": "tool_use", "id": "toolu_03", "name": "lookup", "input": {"key": "ttl"}},
]
ANSWERS: dict[str, dict[str, Any]] = {
    "run_tests": {"content": [{"type": "text", "text": "1 failed, "},
                              {"type": "text", "text": "2 passed"}], "isError": False},
    "read_file": {"content": [{"type": "text", "text": "refused: '../x'"}], "isError": True},
}
NAMES = (
    Message("one tool_result per tool_use, in call order, in one user message"),
    Message("the result's text blocks joined; isError becomes is_error"),
    Message("a call that raises is answered as an is_error result with its text"),
    Message("the arguments sent are the tool_use's input"),
    Message("the API accepts the message as the next turn"),
)


def check_mcp_answer(fn: Callable[[Any, Any], Any]) -> Scorecard:
    card = Scorecard(f"check_mcp_answer({name_of(fn)})")
    sent: list[tuple[str, Any]] = []

    def call(name: str, arguments: Any) -> dict[str, Any]:
        sent.append((name, arguments))
        if name not in ANSWERS:
            raise ConnectionError("the MCP server closed the connection")
        return ANSWERS[name]

    try:
        message = fn([dict(b) for b in TURN], call)
    except Exception as e:
        card.extend(Check(name, False, raised(e)) for name in NAMES)
        return card
    blocks = field_of(message, "content") if field_of(message, "role") == "user" else None
    blocks = blocks if isinstance(blocks, list) else []
    ids = [field_of(b, "tool_use_id") for b in blocks]
    card.append(verdict(NAMES[0], ids == ["toolu_01", "toolu_02", "toolu_03"]
                        and all(field_of(b, "type") == "tool_result" for b in blocks),
                        _("got {message!r}").format(message=message)[:300]))
    got = [(text_of(field_of(b, "content")), bool(field_of(b, "is_error"))) for b in blocks]
    card.append(verdict(NAMES[1], got[:2] == [("1 failed, 2 passed", False),
                                              ("refused: '../x'", True)],
                        _("results {got!r}").format(got=got[:2])[:300]))
    third = got[2] if len(got) > 2 else None
    card.append(verdict(NAMES[2], bool(third and third[1]
                                       and "closed the connection" in str(third[0])),
                        _("the third result is {third!r}").format(third=third)[:300]))
    card.append(verdict(NAMES[3], sent == [(b["name"], b["input"]) for b in TURN[1:]],
                        _("calls sent {sent!r}").format(sent=sent)[:300]))
    card.append(_accepted(message))
    return card


def _accepted(message: Any) -> Check:
    history = [{"role": "user", "content": "Why do the login tests fail?"},
               {"role": "assistant", "content": TURN}, message]
    problem = first_problem(history)
    if problem:
        return Check(NAMES[4], False, problem)
    try:
        create(fake_client(ScriptedModel([say("ok")]), max_retries=0),
               {"model": MODEL, "max_tokens": 64, "messages": history})
    except Exception as e:
        return Check(NAMES[4], False, raised(e))
    return Check(NAMES[4], True)
