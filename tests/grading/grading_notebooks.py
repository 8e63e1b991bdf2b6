"""Tiny submissions for the grading tests, written as plain JSON (so a test can also write
what nbformat would refuse, like `tags: 5`)."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

LESSON = "06_token_growth.ipynb"
# The lesson these tests grade against: lesson 06 as it was when grading was written
# (`check_token_formula(total_input)`, 6 checks), kept here so the tests do not move with
# the real lessons (tests/grading/test_grading_lessons.py reads those).
LESSONS = Path(__file__).resolve().parent / "grading_lessons"
TAGS = ["check", "raises-exception"]
IMPORT = "from looplab.exercises import check_token_formula\n\n"
CHECK = IMPORT + "check_token_formula(total_input)"  # the lesson's check cell, as handed out
SOLVED = (
    "def total_input(n_turns, S, delta):\n"
    "    return n_turns * S + delta * n_turns * (n_turns - 1) // 2"
)
WRONG = "def total_input(n_turns, S, delta):\n    return 0"
STUB = (
    "def total_input(n_turns, S, delta):\n    # YOUR CODE HERE\n"
    '    raise NotImplementedError("the input tokens of n_turns requests in total")'
)

Cell = dict[str, Any]


def code(source: str, tags: object = None) -> Cell:
    metadata = {} if tags is None else {"tags": tags}
    return {"cell_type": "code", "execution_count": None, "metadata": metadata,
            "outputs": [], "source": source}  # fmt: skip


def check(source: str = CHECK, tags: object = TAGS) -> Cell:
    return code(source, tags)


def raw(source: str) -> Cell:
    return {"cell_type": "raw", "metadata": {}, "source": source}


def write_notebook(path: Path, cells: list[Cell | str]) -> Path:
    """A notebook of these cells (a string is a code cell) at `path`."""
    notebook = {
        "cells": [code(c) if isinstance(c, str) else c for c in cells],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def handed_out(lesson: Path) -> str:
    """The student copy of a real lesson as `make exercises` writes it. The files in
    notebooks/exercises/ may hold a student's own answers: tests never read them."""
    tool = runpy.run_path(str(Path(__file__).resolve().parents[2] / "tools/make_exercises.py"))
    language = "en" if lesson.parent.name == "notebooks" else lesson.parent.name
    copy = tool["make_exercise"](tool["_read"](lesson), lesson.name, language)
    return str(tool["stamped"](copy))
