"""Lesson 14's checker: a sub-agent is a tool.

    check_delegate(make_delegate)

`make_delegate(client, tools, ledger) -> delegate`: `delegate(task: str) -> str` is a tool
(type hints and a docstring) that runs the sub-agent with `ledger.run(client, task,
tools=tools, max_turns=5)`, on a history of its own, every request paid from the shared
`ledger` before it is sent; it returns the sub-agent's final text, or raises (`ToolError`)
when the sub-agent stopped without finishing, so the parent gets an `is_error` result.
The checker runs a scripted parent that delegates once, with the sub-agent on a client of
its own; then three sub-agents at once (threads) and a sub-agent inside a sub-agent, all
on one ledger: together they must not spend more than its budget.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable
from typing import Any

from ..core.limits import Limits
from ..core.loop import run_agent
from ..core.tools import Tool, ToolError, tool
from ..fake import FunctionModel, Request, ScriptedModel, call, fake_client, reply, say
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
SHARED = 3_000  # the budget three parallel, or two nested, sub-agents share
COSTLY = {"input_tokens": 600, "output_tokens": 400}  # 1,000 tokens a reply


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
    low = Ledger(1_000, used=800)  # 200 left: less than any request may cost
    broke = _delegated(make_delegate, NEVER_DONE, low)
    outcomes = (finished, endless, broke)
    if all(isinstance(o, str) for o in outcomes):
        card.extend(Check(name, False, str(finished)) for name in NAMES)  # the stub
        return card
    card.extend(_finished(finished, ledger))
    card.append(_stopped(NAMES[3], endless, 5))
    card.append(_stopped(NAMES[4], broke, 0))
    card.append(_shared(make_delegate))
    return card


NAMES = (
    Message("the sub-agent starts from a history of its own: the task alone"),
    Message("the parent gets the sub-agent's final text as the tool_result"),
    Message("the sub-agent's tokens are charged to the ledger"),
    Message("a sub-agent that never finishes stops after 5 turns; the parent gets is_error"),
    Message("the sub-agent may spend only what the ledger has left"),
    Message("sub-agents at once and inside each other spend no more than the shared budget"),
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


def _endless(request: Request, together: threading.Barrier | None = None) -> Any:
    """A worker that never finishes (each call new, so no repeat gate), 1,000 tokens a
    reply; asked with `delegate` among its tools, it delegates first. Its first reply
    waits (up to a second) for the other workers' first requests: workers at once."""
    if together is not None and request.number == 1:
        try:
            together.wait()
        except threading.BrokenBarrierError:
            pass  # a worker the ledger never let send a request
    if "delegate" in request.tool_names and len(request.messages) == 1:
        return reply(call("delegate", task=SUB_TASK), usage=COSTLY)
    return reply(call("read_file", path=f"logs/{request.number}.log"), usage=COSTLY)


def _named(fn: Any) -> Tool:
    """The student's delegate as a tool named `delegate` (in the grader it already is one)."""
    made = fn if isinstance(fn, Tool) else tool(fn)
    return dataclasses.replace(made, name="delegate")


def _spend(make_delegate: Callable[..., Any], nested: bool) -> tuple[int, int] | str:
    """(tokens the fake billed, the ledger's `used`) after three sub-agents ran at once
    (threads), or one whose sub-agent delegates again (`nested`), on one ledger."""
    together = None if nested else threading.Barrier(3, timeout=1)
    ledger = Ledger(SHARED)
    models = [FunctionModel(functools.partial(_endless, together=together)) for _ in range(3)]
    clients = [fake_client(model, max_retries=0) for model in models]
    tools = World([]).tools
    errors: list[BaseException] = []

    def delegate_once(client: Any, extra: list[Any]) -> None:
        try:
            delegate = _named(make_delegate(client, [*tools, *extra], ledger))
            delegate(task=SUB_TASK)
        except Exception as e:
            # a ToolError is a sub-agent stopped by the ledger: what it spent still counts
            # (from the grader's kernel it arrives rebuilt: known by its name)
            if not isinstance(e, ToolError) and type(e).__name__ != "ToolError":
                errors.append(e)

    if nested:
        inner = _named(make_delegate(clients[0], tools, ledger))
        delegate_once(clients[0], [inner])
    else:
        threads = [threading.Thread(target=delegate_once, args=(c, []), daemon=True)
                   for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    if errors:
        return raised(errors[0])
    billed = sum(1_000 for m in models for _ in m.requests)
    return billed, ledger.used


def _shared(make_delegate: Callable[..., Any]) -> Check:
    name = NAMES[5]
    details = []
    # a function that takes one call at a time (the grader's stand-in for a function in a
    # student's kernel) cannot be called from threads at once: there, nesting alone shows
    # the runs overlapping
    at_once = not getattr(make_delegate, "one_call_at_a_time", False)
    for nested in (False, True) if at_once else (True,):
        outcome = _spend(make_delegate, nested)
        if isinstance(outcome, str):
            return Check(name, False, outcome)
        billed, used = outcome
        if billed > SHARED or used < billed:
            how = (_("a sub-agent inside a sub-agent") if nested
                   else _("three sub-agents at once"))
            details.append(_("{how} spent {billed:,} tokens of a {budget:,}-token ledger "
                             "(the ledger says {used:,}): each started with the whole "
                             "budget as its own; reserve before spending "
                             "(ledger.run)").format(how=how, billed=billed, budget=SHARED,
                                                    used=used))
    return verdict(name, not details, "; ".join(details))
