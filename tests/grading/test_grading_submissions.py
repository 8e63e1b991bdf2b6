"""Finding the submitted notebooks and copying one for its run: no kernel needed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from grading_notebooks import LESSON, write_notebook

from looplab.grading.submissions import (
    InvalidNotebook,
    copy_for_run,
    find_submissions,
    read_code_cells,
)


def test_notebooks_are_found_per_student_without_checkpoints_hidden_folders_or_links(
    tmp_path: Path,
) -> None:
    write_notebook(tmp_path / "ada" / LESSON, ["1"])
    write_notebook(tmp_path / "ada" / "week2" / LESSON, ["2"])
    write_notebook(tmp_path / "ada" / ".ipynb_checkpoints" / LESSON, ["old"])
    write_notebook(tmp_path / ".trash" / "x" / LESSON, ["gone"])
    write_notebook(tmp_path / "bob_06_token_growth.ipynb", ["3"])
    (tmp_path / "chen").mkdir()
    os.symlink(tmp_path / "ada" / LESSON, tmp_path / "chen" / LESSON)
    found = [(s.student, s.shown) for s in find_submissions(tmp_path)]
    assert found == [("ada", LESSON), ("ada", f"week2/{LESSON}"),
                     ("bob", "bob_06_token_growth.ipynb")]  # fmt: skip


def test_the_copy_holds_the_students_folder_without_its_links(tmp_path: Path) -> None:
    write_notebook(tmp_path / "submissions/ada" / LESSON, ["1"])
    (tmp_path / "submissions/ada/data.txt").write_text("mine")
    write_notebook(tmp_path / "submissions/bob" / LESSON, ["2"])
    os.symlink(tmp_path / "submissions/bob", tmp_path / "submissions/ada/bob")
    (ada,) = [s for s in find_submissions(tmp_path / "submissions") if s.student == "ada"]
    workdir = copy_for_run(ada, tmp_path / "scratch")
    assert sorted(p.name for p in workdir.iterdir()) == [LESSON, "data.txt"]
    assert not (workdir.parent / "bob").exists()  # no other student next to it either


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[1, 2", "not a notebook: not valid JSON"),
        ("[]", "not a notebook: no nbformat 4 `cells` list"),
        ('{"nbformat": 3, "worksheets": []}', "not a notebook: no nbformat 4 `cells` list"),
        ('{"nbformat": 4, "cells": [5]}', "cell 1 is not a JSON object"),
        ('{"nbformat": 4, "cells": [{"cell_type": "code", "source": 5}]}',
         "cell 1: its source is not text"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_a_runnable_notebook_says_why(
    tmp_path: Path, text: str, reason: str
) -> None:
    path = tmp_path / LESSON
    path.write_text(text)
    with pytest.raises(InvalidNotebook) as raised:
        read_code_cells(path)
    assert str(raised.value).startswith(reason)


def test_code_cells_are_read_with_their_numbers(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / LESSON, ["a = 1", "b = 2"])
    assert read_code_cells(path) == [(1, "a = 1"), (2, "b = 2")]
