"""Lesson 08's checker: a test of the repeat gate that passes, and fails when it should.

    check_gate_test(test_repeated_call_gate, agent)

`test(agent)` is a test function: it raises `AssertionError` when the agent is wrong.
`agent(client, *, clock=None, **limits) -> RunResult` is the agent under test (the
lesson's wrapper around `looplab.run_agent`). The test must pass against `agent`, and
fail against the same agent with the repeat gate off, or one call late.
"""

from __future__ import annotations

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


def check_gate_test(test: Callable[[Any], Any], agent: Callable[..., Any]) -> Scorecard:
    """Run `test` against `agent` and against two broken repeat gates; one line each."""
    card = Scorecard(f"check_gate_test({name_of(test)})")
    result, why = _outcome(test, agent)
    if result == "failed" and why.startswith("NotImplementedError"):
        names = [Message("passes against the agent"),
                 Message("fails against a missing repeat gate"),
                 Message("fails against a gate one call late")]  # fmt: skip
        card.extend(Check(n, False, why) for n in names)
        return card
    card.append(verdict(Message("passes against the agent"), result == "passed",
                        _("it failed against a correct gate: {why}").format(why=why)))
    broken = {
        Message("fails against a missing repeat gate"):
            lambda client, **kw: agent(client, **{**kw, "max_repeats": None}),
        Message("fails against a gate one call late"):
            lambda client, **kw: agent(client, **{**kw, "max_repeats": 4}),
    }
    for name, broken_agent in broken.items():
        result, _why = _outcome(test, broken_agent)
        card.append(verdict(name, result == "failed",
                            _("it passed, so it cannot catch this bug")))
    return card
