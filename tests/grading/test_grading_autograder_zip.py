"""`make autograder` ships the checks, not the solutions: every lesson in the zip is its
student copy, no file holds a solution marker, and a solved notebook graded against the
zip's lessons gets every check, as against the repository's own."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from looplab.grading.cli import main
from looplab.grading.lessons import load_lessons

pytestmark = pytest.mark.slow  # builds the zip and grades a lesson

REPO = Path(__file__).resolve().parents[2]


def _checks(folder: Path) -> dict[str, list[tuple[str, str, str, int | None]]]:
    """Each lesson's check steps (a step's cell number aside: a copy has a note on top)."""
    return {name: [(s.kind, s.label if s.kind != "exec" else "", s.source, s.expected)
                   for cell in lesson.cells for s in cell]
            for name, lesson in load_lessons(folder).by_name.items()}  # fmt: skip


def test_the_autograder_zip_holds_the_checks_and_no_solution(tmp_path: Path) -> None:
    out = tmp_path / "autograder.zip"
    subprocess.run([sys.executable, str(REPO / "tools/build_autograder.py"), "--out", str(out)],
                   check=True, capture_output=True)  # fmt: skip
    with zipfile.ZipFile(out) as zf:
        holding = [n for n in zf.namelist() if b"### BEGIN SOLUTION" in zf.read(n)]
        assert holding == []
        assert not any("/exercises/" in n for n in zf.namelist())  # a teacher's own answers
        zf.extractall(tmp_path / "zip")
    shipped = tmp_path / "zip/notebooks"
    assert _checks(shipped) == _checks(REPO / "notebooks")  # the same checks, counted alike
    # a solved lesson graded against the shipped copies: every check passes
    (tmp_path / "class/ada").mkdir(parents=True)
    lesson = "06_token_growth.ipynb"
    (tmp_path / "class/ada" / lesson).write_bytes((REPO / "notebooks" / lesson).read_bytes())
    book = tmp_path / "book.csv"
    assert main([str(tmp_path / "class"), "--lessons", str(shipped), "--csv", str(book)]) == 0
    row = book.read_text(encoding="utf-8").splitlines()[1].split(",")
    assert row[4] == "passed" and row[2] == row[3] != "0"
