"""Re-grading a few students (`--update GRADEBOOK.csv --only NAME[,NAME...]`): their rows
of an existing long gradebook CSV are replaced by new ones, where the old ones stood;
every other row is written back as it was read.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ..errors import LooplabError
from .marks import Gradebook
from .report import COLUMNS, Cell, csv_rows, read_rows, unsafe, write_rows


class UpdateError(LooplabError, ValueError):
    """A gradebook the grader will not merge into; one line for the teacher."""


def only_arg(text: str) -> set[str]:
    return {name.strip() for name in text.split(",") if name.strip()}


def read_gradebook(path: Path) -> list[list[str]]:
    rows = read_rows(path, UpdateError)
    if not rows or rows[0] != list(COLUMNS):
        raise UpdateError(f"{path} is not a gradebook CSV of this version: its header is "
                          f"not {','.join(COLUMNS)}")  # fmt: skip
    return rows


def merged(old: Sequence[Sequence[Cell]], book: Gradebook, only: set[str]) -> list[list[Cell]]:
    """`old` with the rows of each student in `only` replaced by `book`'s, where that
    student's first row stood (a student new to the gradebook at the end)."""
    new: dict[str, list[list[Cell]]] = {}
    for row in csv_rows(book)[1:]:
        new.setdefault(unsafe(str(row[0])), []).append(row)
    out: list[list[Cell]] = [list(old[0])]
    for line in old[1:]:
        student = unsafe(str(line[0])) if line else ""
        if student not in only:
            out.append(list(line))
        elif student in new:
            out += new.pop(student)  # the first row of the student: all their new rows
    return out + [row for rows in new.values() for row in rows]


def update(path: Path, book: Gradebook, only: set[str]) -> None:
    """Merge `book` (the students in `only`, graded again) into the gradebook at `path`;
    the file is replaced at once, so an interrupted update leaves the old one whole."""
    rows = merged(read_gradebook(path), book, only)
    fd, tmp = tempfile.mkstemp(prefix=".gradebook-", suffix=".csv", dir=path.parent)
    os.close(fd)
    try:
        write_rows(rows, Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
