"""The helpers of lessons 12 and 14: the long log-reading task and the shared ledger."""

from __future__ import annotations

from looplab import Limits, ScriptedModel, fake_client, run_agent, say
from looplab.lessons.long_task import PAGES, log_reader_model, read_log_page_tool, summary_of
from looplab.lessons.subagents import Ledger, final_text


def test_the_log_reader_reads_every_page_then_answers() -> None:
    result = run_agent(fake_client(log_reader_model()), "Find the bug.",
                       tools=[read_log_page_tool()], limits=Limits(max_turns=20))
    assert result.done and len(result.turns) == PAGES + 1
    assert "4 failed attempts" in final_text(result)


def test_after_a_summary_the_reader_goes_on_from_the_page_it_names() -> None:
    history = [{"role": "user", "content": "Find the bug.\n\n" + summary_of(7)}]
    model = log_reader_model()
    result = run_agent(fake_client(model), history, tools=[read_log_page_tool()],
                       limits=Limits(max_turns=20))
    assert result.done and len(result.turns) == PAGES - 7 + 1
    assert model.requests[0]["messages"] == history


def test_the_ledger_adds_runs_and_turns_and_never_goes_below_zero() -> None:
    ledger = Ledger(budget=100)
    result = run_agent(fake_client(ScriptedModel([say("hi")])), "hello",
                       on_turn=ledger.charge_turn)
    assert ledger.used == sum(result.usage.values()) > 0
    ledger.charge(result.usage)
    assert ledger.used == 2 * sum(result.usage.values())
    ledger.charge({"input_tokens": 1_000})
    assert ledger.remaining == 0


def test_eval_trials_vary_between_trials_and_repeat_between_runs() -> None:
    from looplab.lessons.evals import TASKS, run_trial

    fix = next(t for t in TASKS if t.name == "fix")
    first = [run_trial(fix, trial) for trial in range(5)]
    assert first == [run_trial(fix, trial) for trial in range(5)]
    assert {o.passed for o in first} == {True, False}
    assert all(o.passed == (fix.expected in o.answer) for o in first)
