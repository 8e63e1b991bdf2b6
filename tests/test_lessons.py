"""Every lesson keeps the skeleton, is listed in the table of contents, and stores clean outputs.

nbval (run by `make test` over notebooks/) checks that each lesson still runs and prints what
it stored; these tests check what nbval cannot: the shape of the lessons.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
SKELETON = ("Learning goals", "Mistake", "Exercise", "Summary")
MACHINE_PATH = re.compile(r"(/root/|/home/|/tmp/|/work/|/Users/|site-packages|\\\\Users)")


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _headings(path: Path) -> list[str]:
    return [
        line.lstrip("#").strip()
        for cell in _cells(path)
        if cell["cell_type"] == "markdown"
        for line in "".join(cell["source"]).splitlines()
        if line.startswith("#")
    ]


def test_the_lessons_are_numbered_without_gaps() -> None:
    numbers = [int(p.name[:2]) for p in LESSONS]
    assert numbers == list(range(1, len(numbers) + 1)), [p.name for p in LESSONS]
    assert len(numbers) >= 1


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_has_the_skeleton_in_order(lesson: Path) -> None:
    headings = _headings(lesson)
    assert headings and _cells(lesson)[0]["cell_type"] == "markdown", "a lesson opens with a title"
    positions = []
    for section in SKELETON:
        found = [i for i, h in enumerate(headings) if h.startswith(section)]
        assert found, f"{lesson.name} has no '{section}' section; headings: {headings}"
        positions.append(found[0])
    assert positions == sorted(positions), f"{lesson.name}: sections out of order: {headings}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_imports_looplab_and_stores_clean_outputs(lesson: Path) -> None:
    code = [c for c in _cells(lesson) if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    assert any("looplab" in "".join(c["source"]) for c in code), "lessons import looplab"
    # live-API cells are tagged skip-execution and are never run offline
    run = [c for c in code if "skip-execution" not in c["metadata"].get("tags", [])]
    counts = [c["execution_count"] for c in run]
    assert None not in counts, f"{lesson.name}: some cells have no stored run (make notebooks)"
    assert counts == sorted(counts), f"{lesson.name}: cells were not run top to bottom in one go"
    outputs = json.dumps([c["outputs"] for c in code])
    assert not MACHINE_PATH.search(outputs), f"{lesson.name}: an output shows a machine path"
    assert "Traceback (most recent call last)" not in outputs


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_exercise_has_an_automatic_check(lesson: Path) -> None:
    cells = _cells(lesson)
    start = next(
        i
        for i, c in enumerate(cells)
        if c["cell_type"] == "markdown"
        and "".join(c["source"]).lstrip("#").strip().startswith("Exercise")
    )
    after = "".join("".join(c["source"]) for c in cells[start:] if c["cell_type"] == "code")
    assert "check" in after, f"{lesson.name}: the exercise has no check cell"


def test_notebooks_readme_lists_every_lesson() -> None:
    toc = (NOTEBOOKS / "README.md").read_text(encoding="utf-8")
    for lesson in LESSONS:
        assert lesson.name in toc, f"notebooks/README.md does not list {lesson.name}"
