"""The gradebook: a CSV an LMS can import, and an HTML page with each student's scorecard."""

from __future__ import annotations

import csv
import html
from collections.abc import Iterable, Sequence
from pathlib import Path

from .marks import Gradebook, Mark, make_gradebook
from .results import COUNTED, POLICY, Grade

COLUMNS = (
    "student", "notebook", "checks_passed", "checks_total", "status", "first_failed_hint",
    "points", "max_points", "late",
)  # fmt: skip
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

Cell = str | int | float


def safe(text: str) -> str:
    """A text field a spreadsheet will not run as a formula."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def unsafe(text: str) -> str:
    """The text `safe` was given: what a roster or an earlier gradebook matches on."""
    return text[1:] if text.startswith("'") and text[1:].startswith(_FORMULA_START) else text


def as_book(grades: Gradebook | Sequence[Grade]) -> Gradebook:
    return grades if isinstance(grades, Gradebook) else make_gradebook(grades)


def mark_row(book: Gradebook, m: Mark) -> list[Cell]:
    g = m.grade
    return [
        safe(g.student), safe(g.notebook), g.passed, g.total, g.status,
        safe(g.first_failed_hint()), m.points, m.max_points, book.lateness.note(m.late_days),
    ]  # fmt: skip


def csv_rows(grades: Gradebook | Sequence[Grade]) -> list[list[Cell]]:
    """The gradebook's rows, header first: one per notebook."""
    book = as_book(grades)
    return [list(COLUMNS), *(mark_row(book, m) for m in book.marks)]


def read_rows(path: Path, error: type[ValueError]) -> list[list[str]]:
    """A CSV file's rows (a spreadsheet's byte-order mark dropped); `error`, one line,
    when it cannot be read."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as f:
            return list(csv.reader(f))
    except OSError as e:
        raise error(f"cannot read {path}: {e.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as e:
        raise error(f"{path} is not a CSV file: {e}") from None


def write_rows(rows: Iterable[Sequence[Cell]], path: Path, bom: bool = False) -> None:
    """`bom`: UTF-8 with a byte-order mark, for a file a teacher opens in Excel."""
    # a text the grader did not make printable (a path in an error) cannot stop the gradebook
    encoding = "utf-8-sig" if bom else "utf-8"
    with path.open("w", newline="", encoding=encoding, errors="backslashreplace") as f:
        csv.writer(f).writerows(rows)


def write_csv(grades: Gradebook | Sequence[Grade], path: Path) -> None:
    write_rows(csv_rows(grades), path)


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1em; color: #1f2328; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border-bottom: 1px solid #d0d7de; padding: .25em .5em; text-align: left;
         vertical-align: top; overflow-wrap: anywhere; }
td { max-width: 32em; } td.n, th.n { text-align: right; white-space: nowrap; }
.grid td, .grid th { font-size: .9em; padding: .25em .3em; overflow-wrap: normal; }
.grid td:nth-child(2) { white-space: nowrap; } ul.warn { color: #9a6700; }
.passed { color: #1a7f37; } .failed, .crashed, .timeout, .invalid, .error { color: #cf222e; }
h2 { margin-top: 2em; border-bottom: 1px solid #d0d7de; }
"""


def _summary(grades: Sequence[Grade]) -> str:
    counts: dict[str, int] = {}
    for g in grades:
        counts[g.status] = counts.get(g.status, 0) + 1
    parts = ", ".join(f"{n} {status}" for status, n in counts.items())
    return f"{len(grades)} notebooks: {parts}" if grades else "no notebooks"


def scorecard(grade: Grade, mark: Mark | None = None, late: str = "") -> str:
    """One notebook's checks under column headers, each exercise named once, each failed
    check with its hint; when the notebook did not run to its end, the cause is said once
    above the table, not as every check's hint."""
    e = html.escape
    worth = f", {mark.points:g} of {mark.max_points:g} points" if mark and mark.lesson else ""
    head = (
        f"<h3>{e(grade.notebook)}: {grade.passed} of {grade.total} checks{worth}, "
        f'<span class="{e(grade.status)}">{e(grade.status)}</span></h3>'
    )
    if grade.ran_passed != grade.passed:
        head += f"<p>{grade.ran_passed} checks passed before it stopped; they do not count.</p>"
    if late:
        head += f"<p>{e(late)}</p>"
    reason = f"<p>{e(grade.reason)}</p>" if grade.reason else ""
    stopped = grade.status not in COUNTED and bool(grade.reason)
    rows, last = [], None
    for r in grade.rows:
        hint = "" if r.passed else ("(not counted: see above)" if stopped else r.hint)
        rows.append(
            f'<tr><td class="{"passed" if r.passed else "failed"}">{"✓" if r.passed else "✗"}'
            f"</td><td>{'' if r.exercise == last else e(r.exercise)}</td><td>{e(r.name)}</td>"
            f"<td>{e(hint)}</td></tr>"
        )
        last = r.exercise
    head_row = "<tr><th></th><th>exercise</th><th>check</th><th>hint</th></tr>"
    body = "".join(rows)
    table = f"<table><thead>{head_row}</thead><tbody>{body}</tbody></table>" if rows else ""
    return head + reason + table


def scorecard_rows(grade: Grade, exercise: str) -> str:
    """The table of one exercise's checks, under column headers."""
    e = html.escape
    stopped = grade.status not in COUNTED and bool(grade.reason)
    rows = "".join(
        f'<tr><td class="{"passed" if r.passed else "failed"}">{"✓" if r.passed else "✗"}'
        f"</td><td>{e(r.name)}</td><td>"
        f"{'' if r.passed else e('(not counted: see above)' if stopped else r.hint)}</td></tr>"
        for r in grade.rows
        if r.exercise == exercise
    )
    head = "<thead><tr><th></th><th>check</th><th>hint</th></tr></thead>"
    return f"<table>{head}<tbody>{rows}</tbody></table>"


def _cells(row: Sequence[Cell], tag: str = "td") -> str:
    return "".join(f"<{tag}>{html.escape(str(c))}</{tag}>" for c in row)


def student_total(book: Gradebook, marks: Sequence[Mark]) -> str:
    """`23.5 of 40 points (58.8%)`: a student's best notebook of each lesson, summed."""
    return f"{book.total(marks):g} of {book.possible():g} points ({book.percent(marks):g}%)"


def page(title: str, body: str) -> str:
    e = html.escape
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title>"
        f"<style>{_STYLE}</style></head><body><h1>{e(title)}</h1>{body}</body></html>\n"
    )


def _grid(book: Gradebook) -> str:
    """Students × lessons: each student's points per lesson (their best notebook), total and
    percent; a lesson's column is headed by its number, its name in the header's title."""
    e = html.escape
    heads = "".join(f'<th class="n" title="{e(s)}">{e(s[:2])}</th>' for s in book.lessons)
    rows = []
    for folder, who, marks in book.people():
        best = book.best(marks)
        bad = {m.lesson: m.grade.status for m in marks if m.grade.status not in COUNTED}
        cells = "".join(
            f'<td class="n {e(bad.get(s, ""))}" title="{e(bad.get(s, ""))}">'
            f"{best[s]:g}</td>" if s in best else '<td class="n">–</td>'
            for s in book.lessons
        )
        rows.append(f"<tr><td>{e(who.name)}</td><td>{e(who.id if folder != who.id else '')}"
                    f'</td>{cells}<td class="n">{book.total(marks):g}</td>'
                    f'<td class="n">{book.percent(marks):g}%</td></tr>')  # fmt: skip
    header = (f"<tr><th>student</th><th>id</th>{heads}"
              '<th class="n">total</th><th class="n">%</th></tr>')  # fmt: skip
    legend = " · ".join(e(s) for s in book.lessons)  # the columns' numbers, in words
    return (f'<table class="grid"><thead>{header}</thead><tbody>{"".join(rows)}</tbody>'
            f"</table><p><small>{legend}</small></p>")  # fmt: skip


def _warnings(book: Gradebook) -> str:
    e = html.escape
    lines = [*book.roster.warnings(), *(f"{p} was not graded: {why}" for p, why in book.skipped)]
    lines += [f"{m.grade.student}/{m.grade.notebook}: {m.grade.reason}"
              for m in book.marks if not m.lesson and m.grade.reason]  # fmt: skip
    items = "".join(f"<li>{e(line)}</li>" for line in lines)
    return f'<ul class="warn">{items}</ul>' if items else ""


def render_html(grades: Gradebook | Sequence[Grade], title: str = "Gradebook") -> str:
    """One page: what the teacher must look at (unmatched folders, students who handed
    nothing in, what was not graded), the students × lessons grid with each total, then each
    student's scorecards."""
    e = html.escape
    book = as_book(grades)
    students = "".join(
        f"<h2>{e(who.name)}: {e(student_total(book, marks))}</h2>"
        + "".join(scorecard(m.grade, m, book.lateness.note(m.late_days)) for m in marks)
        for _, who, marks in book.people() if marks
    )
    return page(title,
        f"<p>{e(_summary([m.grade for m in book.marks]))}</p>{_warnings(book)}{_grid(book)}"
        f"<p>{e(POLICY)}</p>{students}"
    )  # fmt: skip


def write_html(grades: Gradebook | Sequence[Grade], path: Path) -> None:
    path.write_text(render_html(grades), encoding="utf-8", errors="backslashreplace")
