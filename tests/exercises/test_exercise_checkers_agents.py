"""The checkers of lessons 12-16: a right answer passes, a stub is one line, and each
plausible wrong answer fails the check that names it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from scorecards import failed, stub

from looplab import Limits, ToolError, run_agent
from looplab.exercises import (
    check_delegate,
    check_eval_metrics,
    check_mask_old_results,
    check_mcp_answer,
    check_permission_gate,
)
from looplab.lessons.side_effects import ask_within
from looplab.lessons.subagents import Ledger, final_text

# -- 14 check_delegate ------------------------------------------------------------------------


def make_delegate(client: Any, tools: Any, ledger: Ledger, *,
                  history: list[Any] | None = None) -> Any:
    def delegate(task: str) -> str:
        """Hand a task to a sub-agent with its own history; returns its answer."""
        start = [*(history or []), {"role": "user", "content": task}]
        result = ledger.run(client, start, tools=tools, max_turns=5)
        if not result.done:
            raise ToolError(f"the sub-agent stopped: {result.status}")
        return final_text(result)

    return delegate


def charged_after(client: Any, tools: Any, ledger: Ledger, *, charge: bool = True,
                  whole_budget: bool = False) -> Any:
    """The lesson's first delegate: the run's budget read at its start, charged at its end."""
    def delegate(task: str) -> str:
        """Hand a task to a sub-agent with its own history; returns its answer."""
        budget = ledger.budget if whole_budget else ledger.remaining
        result = run_agent(client, task, tools=tools,
                           limits=Limits(max_turns=5, token_budget=budget))
        if charge:
            ledger.charge(result.usage)
        if not result.done:
            raise ToolError(f"the sub-agent stopped: {result.status}")
        return final_text(result)

    return delegate


SHARED_CHECK = "sub-agents at once and inside each other spend no more than the shared budget"
LEFT_CHECK = "the sub-agent may spend only what the ledger has left"


def test_the_reference_delegate_passes() -> None:
    card = check_delegate(make_delegate)
    assert card.passed, str(card)


def test_a_stub_is_one_line_not_written_yet() -> None:
    card = check_delegate(stub)
    assert not card.passed and len(card) == 6
    assert str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_a_delegate_that_charges_after_the_run_overspends_and_fails() -> None:
    # the lesson's first delegate: every sub-agent started before the others charged sees
    # the whole budget as its own (three at once: 9,000 of 3,000; nested: 6,000)
    card = check_delegate(charged_after)
    assert failed(card) == [LEFT_CHECK, SHARED_CHECK]
    spent = re.findall(r"(?:at once|inside a sub-agent) spent ([\d,]+) tokens of a 3,000",
                       str(card))
    assert len(spent) == 2 and all(int(n.replace(",", "")) > 3_000 for n in spent), str(card)


def test_a_delegate_that_forgets_to_charge_the_ledger_fails_that_check() -> None:
    card = check_delegate(lambda c, t, ledger: charged_after(c, t, ledger, charge=False))
    assert "the sub-agent's tokens are charged to the ledger" in failed(card)


def test_a_delegate_that_spends_the_whole_budget_again_fails_that_check() -> None:
    card = check_delegate(lambda c, t, ledger: charged_after(c, t, ledger, whole_budget=True))
    assert failed(card) == [LEFT_CHECK, SHARED_CHECK]


def test_a_delegate_that_hands_over_the_parents_history_fails_that_check() -> None:
    earlier = [{"role": "user", "content": "Why does login lock users out?"},
               {"role": "assistant", "content": "Let me delegate."}]
    card = check_delegate(lambda c, t, ledger: make_delegate(c, t, ledger, history=earlier))
    assert "the sub-agent starts from a history of its own: the task alone" in failed(card)


def test_a_delegate_that_returns_a_stopped_run_as_an_answer_fails() -> None:
    def no_error(client: Any, tools: Any, ledger: Ledger) -> Any:
        def delegate(task: str) -> str:
            """Hand a task to a sub-agent."""
            result = ledger.run(client, task, tools=tools, max_turns=5)
            return final_text(result) or str(result)
        return delegate

    assert failed(check_delegate(no_error)) == [
        "a sub-agent that never finishes stops after 5 turns; the parent gets is_error",
        LEFT_CHECK]


# -- 12 check_mask_old_results ----------------------------------------------------------------


def mask_old_results(messages: list[Any], keep: int, *, by_message: bool = False,
                     in_place: bool = False, drop: bool = False,
                     rebuild: bool = False) -> list[Any]:
    out = messages if in_place else [dict(m) for m in messages]
    places = [(i, j) for i, m in enumerate(out) if m["role"] == "user"
              and isinstance(m["content"], list)
              for j, b in enumerate(m["content"]) if b["type"] == "tool_result"]
    if by_message:
        rows = sorted({i for i, _ in places})
        kept = set(rows[len(rows) - keep:]) if keep else set()
        old = [(i, j) for i, j in places if i not in kept]
    else:
        old = places[:max(0, len(places) - keep)]
    for i, j in old:
        if not in_place:
            out[i]["content"] = list(out[i]["content"])
        if drop:
            out[i]["content"][j] = None
            continue
        block = out[i]["content"][j]
        kept = ({"type": "tool_result", "tool_use_id": block["tool_use_id"]} if rebuild
                else block)  # a new block that forgets is_error
        out[i]["content"][j] = {**kept, "content": "[old tool result cleared]"}
    for m in out:
        if isinstance(m["content"], list):
            m["content"] = [b for b in m["content"] if b is not None]
    return [m for m in out if m["content"]]


def test_the_reference_mask_passes() -> None:
    card = check_mask_old_results(mask_old_results)
    assert card.passed, str(card)


def test_a_stub_mask_is_one_line_not_written_yet() -> None:
    card = check_mask_old_results(stub)
    assert len(card) == 5 and str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_keeping_the_last_messages_instead_of_the_last_results_fails() -> None:
    card = check_mask_old_results(lambda m, k: mask_old_results(m, k, by_message=True))
    assert failed(card)[0].startswith("keep 3:")


def test_masking_in_place_fails_that_check() -> None:
    card = check_mask_old_results(lambda m, k: mask_old_results(m, k, in_place=True))
    assert failed(card) == ["the history passed in is not changed"]


def test_dropping_old_results_breaks_the_pairs_and_fails() -> None:
    card = check_mask_old_results(lambda m, k: mask_old_results(m, k, drop=True))
    assert "every pair stays valid: same blocks, same ids, is_error kept" in failed(card)
    assert failed(card)[-1].startswith("as a loop step")


def test_a_masked_block_that_forgets_is_error_fails_only_that_check() -> None:
    card = check_mask_old_results(lambda m, k: mask_old_results(m, k, rebuild=True))
    assert failed(card) == ["every pair stays valid: same blocks, same ids, is_error kept"]


# -- 15 check_permission_gate ------------------------------------------------------------------


def gate(t: Any, kind: str, approve: Any, *, ask_reads: bool = False,
         fail_open: bool = False, deny_by_return: bool = False, no_deadline: bool = False) -> Any:
    if kind not in ("read", "write", "dangerous") and not fail_open:
        raise ValueError(f"unknown permission class {kind!r}")

    def yes(tool_input: Any) -> bool:
        if no_deadline:  # waits as long as the human takes
            return approve(t.name, tool_input, kind) is True
        return ask_within(approve, t.name, tool_input, kind) is True

    def gated(**tool_input: Any) -> Any:
        if (kind != "read" or ask_reads) and not yes(tool_input):
            if deny_by_return:
                return f"denied: {t.name}"
            raise ToolError(f"denied by the user: {t.name} was not run")
        return t.fn(**tool_input)

    return dataclasses.replace(t, fn=gated)


def test_the_reference_gate_passes() -> None:
    card = check_permission_gate(gate)
    assert card.passed, str(card)


def test_a_stub_gate_is_one_line_not_written_yet() -> None:
    card = check_permission_gate(stub)
    assert len(card) == 7 and str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_a_denial_sent_as_a_plain_result_fails() -> None:
    card = check_permission_gate(lambda t, k, a: gate(t, k, a, deny_by_return=True))
    assert failed(card) == [
        "a denied write does not run; the model gets an is_error result",
        "a dangerous call is asked about as dangerous; denied, it does not run",
        "a yes that comes after the approver's time runs nothing; the model gets is_error"]


def test_a_gate_that_waits_for_a_late_yes_pays_after_the_model_was_told_no_and_fails() -> None:
    card = check_permission_gate(lambda t, k, a: gate(t, k, a, no_deadline=True))
    assert failed(card) == [
        "a yes that comes after the approver's time runs nothing; the model gets is_error"]
    assert "refunds paid [('o-1001', 30)]" in str(card)


def test_a_gate_that_fails_open_or_asks_for_reads_fails() -> None:
    assert failed(check_permission_gate(lambda t, k, a: gate(t, k, a, fail_open=True))) == [
        "an unknown kind is refused when the gate is made (fail closed)"]
    # its approver says yes to the read, so only the asking itself is wrong
    assert failed(check_permission_gate(lambda t, k, a: gate(t, k, a, ask_reads=True))) == [
        "a read tool runs without asking"]


# -- 13 check_mcp_answer -----------------------------------------------------------------------


def answer_with_mcp(content: list[Any], call: Any, *, catch: bool = True,
                    first_block_only: bool = False) -> dict[str, Any]:
    results = []
    for block in content:
        if block["type"] != "tool_use":
            continue
        try:
            got = call(block["name"], block["input"])
            blocks = got["content"][:1] if first_block_only else got["content"]
            text, is_error = "".join(b["text"] for b in blocks), got["isError"]
        except Exception as e:
            if not catch:
                raise
            text, is_error = str(e), True
        results.append({"type": "tool_result", "tool_use_id": block["id"], "content": text,
                        "is_error": is_error})
    return {"role": "user", "content": results}


def test_the_reference_mcp_answer_passes() -> None:
    card = check_mcp_answer(answer_with_mcp)
    assert card.passed, str(card)


def test_a_stub_mcp_answer_is_one_line_not_written_yet() -> None:
    card = check_mcp_answer(stub)
    assert len(card) == 5 and str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_an_mcp_answer_that_lets_a_call_raise_or_keeps_one_block_fails() -> None:
    raising = check_mcp_answer(lambda c, f: answer_with_mcp(c, f, catch=False))
    assert len(failed(raising)) == 5 and "ConnectionError" in str(raising)
    card = check_mcp_answer(lambda c, f: answer_with_mcp(c, f, first_block_only=True))
    assert failed(card) == ["the result's text blocks joined; isError becomes is_error"]


# -- 16 check_eval_metrics ---------------------------------------------------------------------


def eval_metrics(outcomes: dict[str, list[tuple[bool, int]]], *, power: bool = False,
                 passed_tokens_only: bool = False) -> dict[str, Any]:
    trials = [t for ts in outcomes.values() for t in ts]
    k = len(next(iter(outcomes.values())))
    wins = sum(p for p, _ in trials)
    rate = wins / len(trials)
    tokens = sum(n for p, n in trials if p or not passed_tokens_only)
    return {"success_rate": rate,
            "pass_at_k": sum(any(p for p, _ in ts) for ts in outcomes.values()) / len(outcomes),
            "pass_hat_k": rate ** k if power else
            sum(all(p for p, _ in ts) for ts in outcomes.values()) / len(outcomes),
            "tokens_per_success": tokens / wins if wins else None}


def test_the_reference_eval_metrics_pass() -> None:
    card = check_eval_metrics(eval_metrics)
    assert card.passed, str(card)


def test_a_stub_eval_metrics_is_one_line_not_written_yet() -> None:
    card = check_eval_metrics(stub)
    assert len(card) == 4 and str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_pass_hat_k_as_a_power_or_cost_of_passed_trials_only_fails() -> None:
    assert "pass^k is not the success rate to the k-th power" in failed(
        check_eval_metrics(lambda o: eval_metrics(o, power=True)))
    assert failed(check_eval_metrics(lambda o: eval_metrics(o, passed_tokens_only=True))) == [
        "3 tasks, 4 trials: one always, one sometimes, one never passes",
        "pass^k is not the success rate to the k-th power",
        "failed trials' tokens count in the cost of a success"]
