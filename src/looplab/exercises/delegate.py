"""Lesson 14's checker: a sub-agent is a tool.

    check_delegate(make_delegate)

`make_delegate(client, tools, ledger) -> delegate`: `delegate(task: str) -> str` is a tool
(type hints and a docstring) that runs `run_agent(client, task, tools=tools, ...)` on a
history of its own, at most 5 turns and no more tokens than `ledger.remaining`; it charges
the run's `usage` to the `ledger` and returns the sub-agent's final text, or raises
(`ToolError`) when the sub-agent stopped without finishing, so the parent gets an
`is_error` result. The checker runs a scripted parent that delegates once, with the
sub-agent on a client of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.limits import Limits
from ..core.loop import run_agent
from ..fake import ScriptedModel, call, fake_client, reply, say
from ..i18n import Message, _
from ..lessons.subagents import Ledger
from .common import FILES, World, field_of, name_of, raised, text_of
from .scorecard import Check, Scorecard, verdict

SUB_TASK = "Find out why test_login_lockout fails."
ANSWER = "The lockout counter in src/login.py never resets."
EACH = {"input_tokens": 80, "output_tokens": 20}  # 100 tokens a sub-agent reply

FINISHES = [reply(call("run_tests", module="login"), usage=EACH),
            reply(call("read_file", path="logs/test_login.log"), usage=EACH),
            reply(say(ANSWER), usage=EACH)]  # fmt: skip
NEVER_DONE = [reply(call("read_file", path=path), usage=EACH)  # each file twice: no repeats
              for path in [*FILES, *FILES]]


def _delegated(make_delegate: Callable[..., Any], sub_steps: list[Any],
               ledger: Ledger) -> tuple[World, Any] | str:  # fmt: skip
    """A parent that delegates `SUB_TASK` once, then answers: (sub world, tool_result)."""
    world = World(list(sub_steps))
    parent = ScriptedModel([call("delegate", task=SUB_TASK), say("Reported.")])
    try:
        delegate = make_delegate(world.client, world.tools, ledger)
        run_agent(fake_client(parent, max_retries=0), "Why does login lock users out?",
                  tools=[delegate], limits=Limits(max_turns=3))
    except Exception as e:
        return raised(e)
    if len(parent.requests) < 2:
        return _("the parent never got a reply to its delegate call")
    result = parent.requests[1]["messages"][-1]["content"][0]
    return world, result


def check_delegate(make_delegate: Callable[..., Any]) -> Scorecard:
    """Own history, the answer as the result, tokens charged, turn and token limits."""
    card = Scorecard(f"check_delegate({name_of(make_delegate)})")
    ledger = Ledger(10_000)
    finished = _delegated(make_delegate, FINISHES, ledger)
    endless = _delegated(make_delegate, NEVER_DONE, Ledger(10_000))
    low = Ledger(1_000, used=800)
    broke = _delegated(make_delegate, NEVER_DONE, low)
    outcomes = (finished, endless, broke)
    if all(isinstance(o, str) for o in outcomes):
        card.extend(Check(name, False, str(finished)) for name in NAMES)  # the stub
        return card
    card.extend(_finished(finished, ledger))
    card.append(_stopped(NAMES[3], endless, 5))
    card.append(_stopped(NAMES[4], broke, 2))
    return card


NAMES = (
    Message("the sub-agent starts from a history of its own: the task alone"),
    Message("the parent gets the sub-agent's final text as the tool_result"),
    Message("the sub-agent's tokens are charged to the ledger"),
    Message("a sub-agent that never finishes stops after 5 turns; the parent gets is_error"),
    Message("the sub-agent may spend only what the ledger has left"),
)


def _finished(outcome: tuple[World, Any] | str, ledger: Ledger) -> list[Check]:
    if isinstance(outcome, str):
        return [Check(name, False, outcome) for name in NAMES[:3]]
    world, result = outcome
    first = world.model.requests[0]["messages"] if world.model.requests else []
    own = (len(first) == 1 and text_of(field_of(first[0], "content")) == SUB_TASK)
    text = text_of(field_of(result, "content"))
    used = 100 * len(world.model.requests)
    return [
        verdict(NAMES[0], own, _("the sub-agent's first request sent {n} message(s): "
                                 "{first!r}").format(n=len(first), first=first)[:300]),
        verdict(NAMES[1], text == ANSWER and not field_of(result, "is_error"),
                _("the delegate call was answered with {text!r}").format(text=text)[:300]),
        verdict(NAMES[2], ledger.used == used,
                _("the sub-agent used {used} tokens; the ledger says {charged}").format(
                    used=used, charged=ledger.used)),
    ]


def _stopped(name: Message, outcome: tuple[World, Any] | str, turns: int) -> Check:
    if isinstance(outcome, str):
        return Check(name, False, outcome)
    world, result = outcome
    sent = len(world.model.requests)
    return verdict(name, sent == turns and bool(field_of(result, "is_error")),
                   _("the sub-agent sent {sent} requests (expected {turns}); the tool_result "
                     "has is_error={flag!r}").format(
                       sent=sent, turns=turns, flag=field_of(result, "is_error", False)))
