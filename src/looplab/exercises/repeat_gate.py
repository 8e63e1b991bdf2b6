"""Lesson 08's checker: a test of the repeat gate that passes, and fails when it should.

    check_gate_test(test_repeated_call_gate, agent)

`test(agent)` is a test function: it raises `AssertionError` when the agent is wrong.
`agent(client, *, clock=None, **limits) -> RunResult` is the agent under test (the
lesson's wrapper around `looplab.run_agent`). The test must pass against `agent`, and
fail against the same agent with the repeat gate off, or one call late. The three run in
an order drawn afresh each time.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..i18n import Message, _
from .common import name_of, raised
from .scorecard import Check, Scorecard, verdict


def _outcome(test: Callable[[Any], Any], agent: Callable[..., Any]) -> tuple[str, str]:
    try:
        test(agent)
    except AssertionError as e:
        return "failed", str(e) or "AssertionError"
    except Exception as e:  # e.g. ScriptExhausted: the broken agent wanted more replies
        return "failed", raised(e)
    return "passed", ""


def _agents(agent: Callable[..., Any]) -> tuple[Callable[..., Any], ...]:
    """The agent, then the same agent with no repeat gate and with one a call late. An
    agent that knows its broken twins (the grader's) gives them itself."""
    under_test = getattr(agent, "under_test", None)
    if callable(under_test):
        return tuple(under_test())
    return (agent,
            lambda client, **kw: agent(client, **{**kw, "max_repeats": None}),
            lambda client, **kw: agent(client, **{**kw, "max_repeats": 4}))  # fmt: skip


def check_gate_test(test: Callable[[Any], Any], agent: Callable[..., Any]) -> Scorecard:
    """Run `test` against `agent` and against two broken repeat gates, in an order drawn
    now (so a test cannot tell them apart by when it runs); one line each."""
    card = Scorecard(f"check_gate_test({name_of(test)})")
    agents = _agents(agent)
    order = random.sample(range(len(agents)), len(agents))
    outcomes = dict(zip(order, [_outcome(test, agents[i]) for i in order], strict=True))
    result, why = outcomes[0]
    names = [Message("passes against the agent"),
             Message("fails against a missing repeat gate"),
             Message("fails against a gate one call late")]  # fmt: skip
    if result == "failed" and why.startswith("NotImplementedError"):
        card.extend(Check(n, False, why) for n in names)
        return card
    card.append(verdict(names[0], result == "passed",
                        _("it failed against a correct gate: {why}").format(why=why)))
    for i, name in enumerate(names[1:], 1):
        card.append(verdict(name, outcomes[i][0] == "failed",
                            _("it passed, so it cannot catch this bug")))
    return card
