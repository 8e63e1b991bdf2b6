"""Feedback for students (`--feedback DIR`): one HTML page per student, about that student
alone: the deadline and the lateness rule, their total, and for each notebook its points
and late note, then each exercise's code as the student wrote it beside its checks and
hints (nbgrader's feedback is the student's notebook with comments inline; this is the
same, one exercise at a time).

A page's file name is the student's folder name made safe for any file system, with a
short hash of the name so two names that look alike do not share a page.
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

from .marks import Gradebook, Mark
from .report import page, scorecard, scorecard_rows, student_total
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
    cards = "".join(_card(m, _late(book, m)) for m in marks)
    body = (
        f"<p>{e(name)}: {e(student_total(book, marks))}</p>{_rule(book)}{cards}"
        f"<p><small>{e(POLICY)}</small></p>"
    )
    return page(f"Feedback: {name}", _STYLE + body)


_STYLE = (
    "<style>.ex { display: flex; gap: 1em; align-items: flex-start; flex-wrap: wrap; }"
    " .ex pre { flex: 1 1 28em; margin: 0; padding: .5em; background: #f6f8fa;"
    " overflow-x: auto; } .ex table { flex: 1 1 20em; margin: 0; }</style>"
)


def _rule(book: Gradebook) -> str:
    """The deadline and the lateness rule, said before any late note."""
    lateness = book.lateness
    if lateness.deadline is None:
        return ""
    cut = "no points off for late work"
    if lateness.penalty:
        cut = (f"{lateness.penalty:g}% of a notebook's points off for each day late, any "
               "part of a day counted as a day")  # fmt: skip
    at = lateness.deadline.strftime("%Y-%m-%d %H:%M %Z").strip()
    return f"<p>Deadline: {html.escape(at)}; {html.escape(cut)}.</p>"


def _card(mark: Mark, late: str) -> str:
    """The notebook's scorecard, its checks grouped by exercise, each exercise's checks
    beside the student's code for it."""
    e = html.escape
    card = scorecard(mark.grade, mark, late)
    if not mark.code:
        return card
    head, _, table = card.partition("<table>")
    code = dict(mark.code)
    shown = "".join(
        f"<h4>{e(exercise)}</h4><div class=\"ex\"><pre><code>{e(code[exercise])}</code></pre>"
        f"{scorecard_rows(mark.grade, exercise)}</div>"
        for exercise in code
    )
    rest = [r for r in mark.grade.rows if r.exercise not in code]
    return head + shown + (f"<table>{table}" if rest else "")


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
