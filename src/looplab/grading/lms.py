"""The LMS gradebook (`--lms-csv FILE`, `--lms canvas|moodle|generic`): one row per student
of the roster (`roster.py`), in the layout the LMS imports unedited, written as UTF-8 with
a byte-order mark so that Excel shows 张三 and Ana María as they are.

- canvas: Canvas's gradebook CSV, `Student,ID,SIS User ID,SIS Login ID,Section`, then one
  column per lesson; its second row is `Points Possible`. The first five columns come from
  the roster: pass Canvas's own gradebook export as `--roster` and every student is matched
  on Canvas's ID. No total, percent or late column: Canvas would make each an assignment.
- moodle: `ID number,Name`, then one column per lesson; on Moodle's "Import grades - CSV
  file" page map `ID number` to "ID number" (useridnumber) and each lesson to its grade item.
- generic: the long format, one row per student and lesson:
  `student_id,name,lesson,points,max_points,late_days`.
- without `--lms`: a spreadsheet, one row per student,
  `student,id,03_stop_reason_is_the_fork,06_token_growth,total,percent,late`.

A lesson's points are the student's best notebook of that lesson, after the late penalty;
a roster student who handed nothing in gets 0 everywhere. Without a roster every folder is
a student, its name as id and name.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .marks import Gradebook, Mark
from .report import Cell, read_rows, safe, unsafe, write_rows
from .roster import RosterError, Student

__all__ = ["FORMATS", "RosterError", "load_roster", "lms_rows", "write_lms_csv"]

CANVAS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
"""Canvas's gradebook CSV: the columns before the assignments'."""
POINTS_POSSIBLE = "Points Possible"
MOODLE = ("ID number", "Name")
GENERIC = ("student_id", "name", "lesson", "points", "max_points", "late_days")
_ALIASES = {"student": "name", "full name": "name", "id number": "id"}
"""A roster's columns by other names: Canvas's export (Student, ID) and Moodle's (ID number)."""


def load_roster(path: Path | None) -> list[Student]:
    """The roster's students, in its order; names as written, even when a spreadsheet saved
    `=bob` as `'=bob`. Canvas's gradebook export is a roster too (its Points Possible row
    skipped, its SIS columns kept for the Canvas CSV). `RosterError` for a file without the
    columns id and name, or with an id twice."""
    if path is None:
        return []
    header, *rows = read_rows(path, RosterError) or [[]]
    columns = [h.strip() for h in header]
    named = [_ALIASES.get(c.lower(), c.lower()) for c in columns]
    if not {"id", "name"} <= set(named):
        raise RosterError(f"{path} needs the columns id and name (and folder, if you like)")
    students, seen = [], set()
    for number, row in enumerate(rows, 2):
        cells = [unsafe(v.strip()) for v in row]
        r = dict(zip(named, cells, strict=False))
        if not any(cells) or r.get("name") == POINTS_POSSIBLE:
            continue
        if not r.get("id"):
            raise RosterError(f"{path} line {number} has no id")
        if r["id"] in seen:
            raise RosterError(f"{path} line {number}: the id {r['id']} is there twice")
        seen.add(r["id"])
        extra = tuple((c, v) for c, v in zip(columns, cells, strict=False) if c in CANVAS[2:])
        students.append(Student(r["id"], r.get("name") or r["id"], r.get("folder", ""), extra))
    return students


def _students(book: Gradebook) -> list[tuple[Student, list[Mark]]]:
    """Each student of the LMS file with their marks: the roster's in its order (folders
    matched to no one left out; the grader listed them), else every folder."""
    matched = book.roster
    by_folder = book.students()
    if not matched.students:
        return [(matched.who(f), marks) for f, marks in sorted(by_folder.items())]
    return [
        (s, [m for f, marks in sorted(by_folder.items())
             if matched.by_folder.get(f) == s for m in marks])
        for s in matched.students
    ]  # fmt: skip


def _spreadsheet(book: Gradebook) -> list[list[Cell]]:
    rows: list[list[Cell]] = [["student", "id", *book.lessons, "total", "percent", "late"]]
    for who, marks in _students(book):
        best = book.best(marks)
        late = max((m.late_days for m in marks), default=0)
        rows.append([safe(who.name), safe(who.id), *(best.get(s, 0.0) for s in book.lessons),
                     book.total(marks), book.percent(marks), late])  # fmt: skip
    return rows


def _canvas(book: Gradebook) -> list[list[Cell]]:
    rows: list[list[Cell]] = [[*CANVAS, *book.lessons]]
    rows.append([POINTS_POSSIBLE, "", "", "", "",
                 *(book.points.lesson(s) for s in book.lessons)])  # fmt: skip
    for who, marks in _students(book):
        extra = dict(who.extra)
        best = book.best(marks)
        rows.append([safe(who.name), safe(who.id), *(safe(extra.get(c, "")) for c in CANVAS[2:]),
                     *(best.get(s, 0.0) for s in book.lessons)])  # fmt: skip
    return rows


def _moodle(book: Gradebook) -> list[list[Cell]]:
    rows: list[list[Cell]] = [[*MOODLE, *book.lessons]]
    for who, marks in _students(book):
        best = book.best(marks)
        rows.append([safe(who.id), safe(who.name), *(best.get(s, 0.0) for s in book.lessons)])
    return rows


def _generic(book: Gradebook) -> list[list[Cell]]:
    rows: list[list[Cell]] = [list(GENERIC)]
    for who, marks in _students(book):
        best = book.best(marks)
        for s in book.lessons:
            late = max((m.late_days for m in marks if m.lesson == s), default=0)
            rows.append([safe(who.id), safe(who.name), s, best.get(s, 0.0),
                         book.points.lesson(s), late])  # fmt: skip
    return rows


FORMATS: dict[str, Callable[[Gradebook], list[list[Cell]]]] = {
    "canvas": _canvas, "moodle": _moodle, "generic": _generic,
}  # fmt: skip


def lms_rows(book: Gradebook, lms: str | None = None) -> list[list[Cell]]:
    """Header first (and Canvas's Points Possible row), then one row per student."""
    return (FORMATS[lms] if lms else _spreadsheet)(book)


def write_lms_csv(book: Gradebook, path: Path, lms: str | None = None) -> None:
    write_rows(lms_rows(book, lms), path, bom=True)
