"""Gradescope's autograder: `looplab-grade --gradescope-root DIR` grades the notebooks in
DIR/submission as one student's and writes DIR/results/results.json in Gradescope's format:

    {"score": 23.33, "output": "...", "tests": [
        {"name": "06_token_growth: check_token_formula(total_input): one turn sends S",
         "score": 5.0, "max_score": 5.0, "output": "passed", "status": "passed"}, ...]}

One test per check, worth its share of the lesson's points (`points.py`); a notebook that
did not run to its end scores 0 (`results.POLICY`), and each of its tests says why. The
late penalty is Gradescope's to apply, so none is taken here. `make autograder` builds the
zip Gradescope takes (`tools/gradescope/`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .marks import Gradebook, Mark
from .results import COUNTED, POLICY
from .submissions import Submission, find_submissions

STUDENT = "submission"


def gradescope_submissions(root: Path) -> list[Submission]:
    """Every notebook under `root`/submission, all of them one student's."""
    folder = root / STUDENT
    return [
        Submission(STUDENT, s.path, "/".join(s.path.relative_to(folder).parts), folder)
        for s in find_submissions(folder)
    ]


def _tests(mark: Mark, book: Gradebook) -> list[dict[str, Any]]:
    grade = mark.grade
    if mark.lesson not in book.lessons:
        why = grade.reason or "this lesson does not count in this assignment"
        return [{"name": grade.notebook, "score": 0.0, "max_score": 0.0, "output": why,
                 "status": "failed"}]  # fmt: skip
    worth = book.points.of_rows(mark.lesson, grade.rows)
    counted = grade.status in COUNTED
    tests = []
    for row, points in zip(grade.rows, worth, strict=True):
        why = "passed" if row.passed else (row.hint or "failed")
        if not counted and grade.reason:
            why = f"{grade.status}: {grade.reason}" + ("" if row.passed else f" ({why})")
        tests.append({
            "name": f"{mark.lesson}: {row.exercise}: {row.name}",
            "score": round(points, 2) if row.passed and counted else 0.0,
            "max_score": round(points, 2),
            "output": why,
            "status": "passed" if row.passed and counted else "failed",
        })  # fmt: skip
    return tests


def results(book: Gradebook) -> dict[str, Any]:
    """Gradescope's results.json for one student's gradebook."""
    tests = [t for m in book.marks for t in _tests(m, book)]
    score = round(sum(t["score"] for t in tests), 2)
    summary = ", ".join(f"{m.grade.notebook}: {m.grade.status}" for m in book.marks)
    return {
        "score": score,
        "output": f"{summary or 'no notebook (*.ipynb) was handed in'}.\n{POLICY}",
        "tests": tests,
    }


def write_results(book: Gradebook, root: Path) -> Path:
    path = root / "results" / "results.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results(book), indent=2, ensure_ascii=False) + "\n",
                    encoding="utf-8", errors="backslashreplace")  # fmt: skip
    return path
