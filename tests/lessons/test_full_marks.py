"""Every lesson's reference solutions get full marks from its checkers, in both editions.

nbval compares a re-run lesson with its stored outputs, so a card stored with a check failed
would pass for ever: the stored cards are read here and must all be full (but a cell tagged
`before`, which grades the "before" state on purpose), and the slow test re-runs every
lesson with solutions and reads the cards its checkers show now.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from editions import LESSON_GLOB, NOTEBOOKS
from scorecards_shown import BEFORE, cards, has_solutions

ROOT = NOTEBOOKS.parent
EDITIONS = [*sorted(NOTEBOOKS.glob(LESSON_GLOB)), *sorted((NOTEBOOKS / "zh-CN").glob(LESSON_GLOB))]
WITH_SOLUTIONS = [p for p in EDITIONS if has_solutions(p)]
IDS = [p.relative_to(NOTEBOOKS).as_posix()[:8] for p in WITH_SOLUTIONS]


def read(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text(encoding="utf-8"))


def test_both_editions_have_lessons_with_solutions() -> None:
    assert len(WITH_SOLUTIONS) == len(EDITIONS) == 2 * len(sorted(NOTEBOOKS.glob(LESSON_GLOB)))
    assert len(EDITIONS) >= 36  # lessons 01-18, each in both editions


@pytest.mark.parametrize("lesson", WITH_SOLUTIONS, ids=IDS)
def test_every_card_stored_shows_full_marks(lesson: Path) -> None:
    shown = cards(read(lesson))
    assert shown, f"{lesson.name}: has solutions but shows no checker's card"
    assert [c for c in shown if not c.full] == []


@pytest.mark.parametrize("lesson", WITH_SOLUTIONS, ids=IDS)
def test_a_cell_tagged_before_shows_a_card_below_full_marks(lesson: Path) -> None:
    """The tag cannot hide a card: it marks only a cell whose card is not full."""
    notebook = read(lesson)
    for number, cell in enumerate(notebook["cells"]):
        if BEFORE in cell.get("metadata", {}).get("tags", []):
            untagged = {**cell, "metadata": {}}
            alone = cards({"cells": [untagged]})
            assert alone and not any(c.full for c in alone), f"{lesson.name} cell {number}"


@pytest.mark.slow  # runs the lesson: seconds
@pytest.mark.parametrize("lesson", WITH_SOLUTIONS, ids=IDS)
def test_the_reference_solutions_get_full_marks_when_run(lesson: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "run_notebooks.py"), str(lesson),
         "--into", str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    now = cards(read(tmp_path / lesson.name))
    assert now and [c for c in now if not c.full] == []
    assert len(now) == len(cards(read(lesson)))  # every card the lesson shows was shown
