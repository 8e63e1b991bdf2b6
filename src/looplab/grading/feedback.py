"""Feedback for students (`--feedback DIR`): one HTML page per student, about that student
alone: each notebook's scorecard with its hints, points and late note, and their total.

A page's file name is the student's folder name made safe for any file system, with a
short hash of the name so two names that look alike do not share a page.
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

from .marks import Gradebook, Mark
from .report import page, scorecard, student_total
from .results import POLICY

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def page_name(student: str) -> str:
    """`ada-1a2b3c4d.html`: readable, unique, and safe as a file name."""
    digest = hashlib.sha256(student.encode("utf-8", "backslashreplace")).hexdigest()[:8]
    readable = _UNSAFE.sub("_", student).strip("._")[:60] or "student"
    return f"{readable}-{digest}.html"


def render_feedback(book: Gradebook, student: str) -> str:
    """The page of `student`: their marks only."""
    e = html.escape
    marks = book.students().get(student, [])
    name = book.who(student).name  # the roster's name, not the folder's
    cards = "".join(scorecard(m.grade, m, _late(book, m)) for m in marks)
    body = (
        f"<p>{e(name)}: {e(student_total(book, marks))}</p>{cards}"
        f"<p><small>{e(POLICY)}</small></p>"
    )
    return page(f"Feedback: {name}", body)


def _late(book: Gradebook, mark: Mark) -> str:
    """The late note, and when the notebook was handed in by which source (so a student
    can tell whether the LMS's time or their own timestamp.txt counted)."""
    note = book.lateness.note(mark.late_days) or ("on time" if mark.handed_in else "")
    return f"{note} ({mark.handed_in})" if mark.handed_in else note


def write_feedback(book: Gradebook, folder: Path) -> dict[str, Path]:
    """Write every student's page into `folder`; {student: page}."""
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    for student in book.students():
        path = folder / page_name(student)
        path.write_text(render_feedback(book, student), encoding="utf-8",
                        errors="backslashreplace")  # fmt: skip
        written[student] = path
    return written
