"""The LMS gradebook (`--lms-csv FILE`): one row per student, one column per lesson, the
shape Canvas and Moodle import.

    student,id,03_stop_reason_is_the_fork,06_token_growth,total,percent,late

A lesson's column holds the student's points for it (their best notebook of that lesson,
after the late penalty); `total` sums them, `percent` is of every lesson's points, `late`
is the most days any of their notebooks was late. `id` and the name come from `--roster
FILE` (a CSV with the columns id, name, folder) when given, else the folder's name; a
student on the roster who handed nothing in still gets a row of zeros.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import LooplabError
from .marks import Gradebook, Mark
from .report import Cell, read_rows, safe, unsafe, write_rows


class RosterError(LooplabError, ValueError):
    """A roster the grader cannot use; the message is one line for the teacher."""


@dataclass(frozen=True)
class Student:
    id: str
    name: str


def load_roster(path: Path | None) -> dict[str, Student]:
    """{folder: student} from the roster CSV; its names matched as written, even when a
    spreadsheet saved `=bob` as `'=bob`."""
    if path is None:
        return {}
    header, *rows = read_rows(path, RosterError) or [[]]
    if not {"id", "name", "folder"} <= set(header):
        raise RosterError(f"{path} needs the columns id, name, folder")
    records = [dict(zip(header, row, strict=False)) for row in rows]
    return {
        unsafe(r.get("folder", "")): Student(unsafe(r.get("id", "")), unsafe(r.get("name", "")))
        for r in records
    }


def lms_rows(book: Gradebook, roster: dict[str, Student] | None = None) -> list[list[Cell]]:
    """Header first, then one row per student: those who handed in, then the rest of the
    roster."""
    roster = roster or {}
    header: list[Cell] = ["student", "id", *book.lessons, "total", "percent", "late"]
    rows = [header]
    students = book.students()
    for folder in [*sorted(students), *sorted(set(roster) - set(students))]:
        marks: list[Mark] = students.get(folder, [])
        who = roster.get(folder, Student(folder, folder))
        best = book.best(marks)
        late = max((m.late_days for m in marks), default=0)
        rows.append([
            safe(who.name), safe(who.id), *(best.get(stem, 0.0) for stem in book.lessons),
            book.total(marks), book.percent(marks), late,
        ])  # fmt: skip
    return rows


def write_lms_csv(book: Gradebook, path: Path, roster: dict[str, Student] | None = None) -> None:
    write_rows(lms_rows(book, roster), path)
