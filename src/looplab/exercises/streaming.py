"""Lesson 19's checker: one turn, streamed.

    check_stream_turn(stream_turn)

`stream_turn(client, request, on_text, on_call) -> message`: stream `request` (a dict of
`client.messages.stream`'s arguments); call `on_text(piece)` for each `text_delta` as it
arrives; gather each `tool_use` block's input from its `input_json_delta` pieces and, when
that block's `content_block_stop` arrives, parse the joined pieces and call
`on_call(name, input)`, once, unless they do not parse (a call cut by `max_tokens`: it is
never run); return the final message. The checker streams scripted replies written at a
speed (`tokens_per_s`) on a `FakeClock`, so it sees *when* each callback comes: a text
shown only at the end, or a call run only after the whole reply, arrives too late.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.loop import MODEL
from ..fake import FakeClock, ScriptedModel, call, fake_client, reply, say
from ..fake.steps import Reply
from ..i18n import Message, _
from .common import field_of, name_of, raised
from .scorecard import Check, Scorecard, verdict

TEXT = ("The login test fails because the lockout counter in src/login.py never resets "
        "after a successful login, so the fifth attempt locks the user out.")
FIRST = "Lockout counter never resets; reset it after a successful login. " * 2
SECOND = "Check test_login_lockout again once the counter resets. " * 2
TOOL = {"name": "write_note", "description": "Write a note to a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"},
                                                          "text": {"type": "string"}}},
        "eager_input_streaming": True}
ASK = [{"role": "user", "content": "Why does the login test fail? Note it down."}]

Seen = tuple[list[tuple[str, float]], list[tuple[Any, Any, float]], Any, float]


def _stream(stream_turn: Callable[..., Any], step: Reply, max_tokens: int = 1_000) -> Seen | str:
    """Run `stream_turn` on one scripted reply: (texts, calls, returned, end), each
    callback with the clock's time when it came; or what went wrong, as one line."""
    clock = FakeClock()
    client = fake_client(ScriptedModel([step]), clock=clock, max_retries=0)
    texts: list[tuple[str, float]] = []
    calls: list[tuple[Any, Any, float]] = []
    request = {"model": MODEL, "max_tokens": max_tokens, "messages": list(ASK), "tools": [TOOL]}
    try:
        returned = stream_turn(client, request, lambda piece: texts.append((piece, clock())),
                               lambda name, tool_input: calls.append((name, tool_input, clock())))
    except Exception as e:
        return raised(e)
    return texts, calls, returned, clock()


def _text_as_it_arrives(stream_turn: Callable[..., Any]) -> tuple[bool, str]:
    seen = _stream(stream_turn, reply(say(TEXT), delay_s=0.5, tokens_per_s=40))
    if isinstance(seen, str):
        return False, seen
    texts, _calls, returned, end = seen
    if "".join(piece for piece, _ in texts) != TEXT:
        return False, _("on_text's pieces, joined, are not the reply's text")
    if len(texts) < 2 or texts[0][1] >= end:
        return False, _("the text came at once, after the whole reply: call on_text for "
                        "each text_delta as it arrives")
    if field_of(returned, "stop_reason") != "end_turn":
        return False, _("return the final message (stream.get_final_message())")
    return True, ""


def _calls_at_block_end(stream_turn: Callable[..., Any]) -> tuple[Check, Check]:
    once = Message("each call runs once, with its whole input")
    timely = Message("a call runs when its block ends, before the next block arrives")
    step = reply(say("Noting it."), call("write_note", path="a.md", text=FIRST),
                 call("write_note", path="b.md", text=SECOND), tokens_per_s=40)
    seen = _stream(stream_turn, step)
    if isinstance(seen, str):
        return Check(once, False, seen), Check(timely, False, seen)
    _texts, calls, returned, end = seen
    want = [("write_note", {"path": "a.md", "text": FIRST}),
            ("write_note", {"path": "b.md", "text": SECOND})]
    got = [(name, tool_input) for name, tool_input, _ in calls]
    whole = verdict(once, got == want, _("on_call got {got!r}; want each call once, with "
                                         "the input its pieces spell").format(got=got)[:300])
    if got != want:
        return whole, Check(timely, False, _("fix the calls first"))
    on_time = calls[0][2] < end and field_of(returned, "stop_reason") == "tool_use"
    return whole, verdict(timely, on_time, _(
        "the first call ran only after the whole reply: run it at its content_block_stop"))


def _cut_call_not_run(stream_turn: Callable[..., Any]) -> tuple[bool, str]:
    step = reply(say("Noting it."), call("write_note", path="a.md", text=FIRST),
                 tokens_per_s=40)
    seen = _stream(stream_turn, step, max_tokens=40)
    if isinstance(seen, str):
        return False, seen
    _texts, calls, returned, _end = seen
    if calls:
        return False, _("a call cut by max_tokens ran with {input!r}: its pieces do not "
                        "parse, so never run it").format(input=calls[0][1])[:300]
    if field_of(returned, "stop_reason") != "max_tokens":
        return False, _("return the final message (stream.get_final_message())")
    return True, ""


def check_stream_turn(fn: Callable[..., Any]) -> Scorecard:
    card = Scorecard(f"check_stream_turn({name_of(fn)})")
    card.append(Check(Message("text is shown piece by piece, as it arrives"),
                      *_text_as_it_arrives(fn)))
    card.extend(_calls_at_block_end(fn))
    card.append(Check(Message("a call cut by max_tokens, whose JSON does not parse, never runs"),
                      *_cut_call_not_run(fn)))
    return card
