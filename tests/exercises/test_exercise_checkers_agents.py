"""The checkers of lessons 12-16: a right answer passes, a stub is one line, and each
plausible wrong answer fails the check that names it.
"""

from __future__ import annotations

from typing import Any

from scorecards import failed, stub

from looplab import Limits, ToolError, run_agent
from looplab.exercises import check_delegate
from looplab.lessons.subagents import Ledger, final_text

# -- 14 check_delegate ------------------------------------------------------------------------


def make_delegate(client: Any, tools: Any, ledger: Ledger, *, charge: bool = True,
                  history: list[Any] | None = None, whole_budget: bool = False) -> Any:
    def delegate(task: str) -> str:
        """Hand a task to a sub-agent with its own history; returns its answer."""
        budget = ledger.budget if whole_budget else ledger.remaining
        start = [*(history or []), {"role": "user", "content": task}]
        result = run_agent(client, start, tools=tools,
                           limits=Limits(max_turns=5, token_budget=budget))
        if charge:
            ledger.charge(result.usage)
        if not result.done:
            raise ToolError(f"the sub-agent stopped: {result.status}")
        return final_text(result)

    return delegate


def test_the_reference_delegate_passes() -> None:
    card = check_delegate(make_delegate)
    assert card.passed, str(card)


def test_a_stub_is_one_line_not_written_yet() -> None:
    card = check_delegate(stub)
    assert not card.passed and len(card) == 5
    assert str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_a_delegate_that_forgets_to_charge_the_ledger_fails_that_check() -> None:
    card = check_delegate(lambda c, t, ledger: make_delegate(c, t, ledger, charge=False))
    assert failed(card) == ["the sub-agent's tokens are charged to the ledger"]


def test_a_delegate_that_spends_the_whole_budget_again_fails_that_check() -> None:
    card = check_delegate(lambda c, t, ledger: make_delegate(c, t, ledger, whole_budget=True))
    assert failed(card) == ["the sub-agent may spend only what the ledger has left"]


def test_a_delegate_that_hands_over_the_parents_history_fails_that_check() -> None:
    earlier = [{"role": "user", "content": "Why does login lock users out?"},
               {"role": "assistant", "content": "Let me delegate."}]
    card = check_delegate(lambda c, t, ledger: make_delegate(c, t, ledger, history=earlier))
    assert "the sub-agent starts from a history of its own: the task alone" in failed(card)


def test_a_delegate_that_returns_a_stopped_run_as_an_answer_fails() -> None:
    def no_error(client: Any, tools: Any, ledger: Ledger) -> Any:
        def delegate(task: str) -> str:
            """Hand a task to a sub-agent."""
            result = run_agent(client, task, tools=tools,
                               limits=Limits(max_turns=5, token_budget=ledger.remaining))
            ledger.charge(result.usage)
            return final_text(result) or str(result)
        return delegate

    assert failed(check_delegate(no_error)) == [
        "a sub-agent that never finishes stops after 5 turns; the parent gets is_error",
        "the sub-agent may spend only what the ledger has left"]
