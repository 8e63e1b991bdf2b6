"""Lesson 21's checker: a right `path_metrics` passes, a stub is one line, and each
plausible wrong answer fails the check it gets wrong. The traces it reads come from scripted
runs through the real SDK and the fake API."""

from __future__ import annotations

from typing import Any

from scorecards import failed, stub

from looplab.exercises import check_path_metrics
from looplab.lessons.traces import failed as errored
from looplab.lessons.traces import operation

Trials = list[tuple[bool, list[Any]]]


def path_metrics(trials: Trials, *, errors_per_trial: bool = False,
                 recovery_over_all: bool = False,
                 every_span_a_turn: bool = False) -> dict[str, Any]:
    def tools(spans: list[Any]) -> list[Any]:
        return [s for s in spans if operation(s) == "execute_tool"]

    calls = [s for _, spans in trials for s in tools(spans)]
    if errors_per_trial:  # the mean of each trial's error rate: a trial without tools divides by 0
        error_rate = sum(sum(map(errored, tools(spans))) / len(tools(spans))
                         for _, spans in trials) / len(trials)
    else:
        error_rate = sum(map(errored, calls)) / len(calls) if calls else 0.0
    hit = [ok for ok, spans in trials if recovery_over_all or any(map(errored, tools(spans)))]
    wins = sum(ok for ok, _ in trials)
    turns = sum(1 for _, spans in trials for s in spans
                if every_span_a_turn and operation(s) in ("chat", "gate") or operation(s) == "chat")
    return {"tool_error_rate": error_rate, "recovery_rate": sum(hit) / len(hit) if hit else None,
            "turns_per_success": turns / wins if wins else None}


def test_the_reference_path_metrics_pass() -> None:
    card = check_path_metrics(path_metrics)
    assert card.passed, str(card)


def test_a_stub_path_metrics_is_one_line_not_written_yet() -> None:
    card = check_path_metrics(stub)
    assert len(card) == 4 and str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_errors_averaged_per_trial_fail_where_trials_differ_in_calls() -> None:
    card = check_path_metrics(lambda t: path_metrics(t, errors_per_trial=True))
    assert failed(card) == [
        "a clean pass, an error recovered from, a run stopped by the repeat gate",
        "no trial passed: turns_per_success is None",
        "a trial with no tool call; gate spans are not turns"]
    assert "ZeroDivisionError" in str(card)


def test_recovery_counted_over_every_trial_fails() -> None:
    card = check_path_metrics(lambda t: path_metrics(t, recovery_over_all=True))
    assert failed(card) == [
        "a clean pass, an error recovered from, a run stopped by the repeat gate",
        "no tool error: recovery_rate is None"]


def test_gate_spans_counted_as_turns_fail() -> None:
    card = check_path_metrics(lambda t: path_metrics(t, every_span_a_turn=True))
    assert "a trial with no tool call; gate spans are not turns" in failed(card)
    assert "no tool error: recovery_rate is None" in failed(card)
