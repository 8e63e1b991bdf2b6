"""Lesson 21's numbers, in both editions: what the stored outputs say (tool-error rate,
recovery rate, the step each failed trial is pinned to) is what the trials give now."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from editions import NOTEBOOKS, chinese

from looplab.lessons.path_evals import run_trial, went_wrong
from looplab.lessons.traces import failed, operation

pytestmark = pytest.mark.slow  # twelve traced runs: seconds
EDITIONS = [NOTEBOOKS / "21_traces_and_process_evals.ipynb", chinese("21")]
K = 12


def printed(lesson: Path) -> str:
    cells = nbformat.read(lesson, 4).cells
    return "\n".join(o.get("text", "") for c in cells if c.cell_type == "code"
                     for o in c.outputs)


@pytest.fixture(scope="module")
def trials() -> list:  # type: ignore[type-arg]
    return [run_trial(t) for t in range(K)]


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_path_numbers_shown_are_the_trials(lesson: Path, trials: list) -> None:  # type: ignore[type-arg]
    calls = [s for t in trials for s in t.spans if operation(s) == "execute_tool"]
    errors = sum(failed(s) for s in calls)
    hit = [t for t in trials if any(failed(s) for s in t.spans if operation(s) == "execute_tool")]
    text = printed(lesson)
    assert f"{errors}/{len(calls)} = {errors / len(calls):.0%}" in text
    recovered = sum(t.passed for t in hit)
    assert f"{recovered}/{len(hit)} = {recovered / len(hit):.0%}" in text
    assert 0 < errors < len(calls) and 0 < recovered < len(hit)


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_each_failed_trial_is_shown_pinned_to_its_step(lesson: Path, trials: list) -> None:  # type: ignore[type-arg]
    text = printed(lesson)
    failures = [(n, t) for n, t in enumerate(trials) if not t.passed]
    assert len(failures) >= 2
    for n, trial in failures:
        step = went_wrong(trial.spans)
        turn = step.attributes["looplab.turn"]
        line = next(line for line in text.splitlines()
                    if line.startswith((f"trial {n:>2}:", f"试验 {n:>2}：")))
        assert f" {turn}" in line and step.name in line
