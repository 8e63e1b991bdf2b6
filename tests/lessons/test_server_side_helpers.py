"""`looplab.lessons.server_side`: lesson 04's loop through the beta endpoint (`run_beta`),
and the log reader that paces itself by a task budget's countdown (`budget_reader`)."""

from __future__ import annotations

import looplab
from looplab import ScriptedModel, call, fake_client, say
from looplab.lessons.long_task import PAGES, log_reader_model, read_log_page_tool
from looplab.lessons.server_side import RESERVE, budget_reader_model, run_beta

TASK = "Find out why bob was not locked out."


def test_run_beta_sends_the_server_side_arguments_and_counts_each_turn() -> None:
    model = log_reader_model()
    run = run_beta(fake_client(model), TASK, tools=[read_log_page_tool()],
                   betas=["context-management-2025-06-27"],
                   context_management={"edits": [{"type": "clear_tool_uses_20250919"}]})
    assert run.stop_reason == "end_turn" and len(run.turns) == PAGES + 1
    assert all(body["context_management"]["edits"][0]["type"] == "clear_tool_uses_20250919"
               for body in model.requests)
    assert [t.cumulative_input for t in run.turns] == [
        sum(t.total_input for t in run.turns[:n]) for n in range(1, len(run.turns) + 1)]
    assert [r.context_management.applied_edits for r in run.replies] == [[]] * len(run.turns)
    assert run.turns[0].tool_calls[0].outcome == "ran"


def test_a_tool_that_fails_is_answered_with_is_error_and_the_run_goes_on() -> None:
    @looplab.tool
    def delete_log(path: str) -> str:
        """Delete a log file."""
        raise looplab.ToolError(f"{path}: the log is read-only")

    model = ScriptedModel([call("delete_log", path="login.log"), say("I will only read.")])
    run = run_beta(fake_client(model), TASK, tools=[delete_log])
    result = run.messages[2]["content"][0]
    assert result["is_error"] is True and "read-only" in result["content"]
    assert run.stop_reason == "end_turn" and run.messages[-1]["content"][0]["text"] == (
        "I will only read.")


def test_the_budget_reader_reads_on_above_its_reserve_and_wraps_up_below() -> None:
    def pages_read(remaining: int) -> int:
        run = run_beta(fake_client(budget_reader_model()), TASK, tools=[read_log_page_tool()],
                       betas=["task-budgets-2026-03-13"], output_config={"task_budget": {
                           "type": "tokens", "total": 20_000, "remaining": remaining}})
        assert run.stop_reason == "end_turn"
        return len(run.turns) - 1

    assert pages_read(20_000) == PAGES
    assert pages_read(RESERVE - 1) == 0
    assert 0 < pages_read(4_000) < PAGES
