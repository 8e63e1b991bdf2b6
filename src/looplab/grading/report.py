"""The gradebook: a CSV an LMS can import, and an HTML page with each student's scorecard."""

from __future__ import annotations

import csv
import html
from collections.abc import Iterable, Sequence
from itertools import groupby
from pathlib import Path

from .results import Grade

COLUMNS = ("student", "notebook", "checks_passed", "checks_total", "status", "first_failed_hint")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _safe(text: str) -> str:
    """A text field a spreadsheet will not run as a formula."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_rows(grades: Iterable[Grade]) -> list[list[str | int]]:
    """The gradebook's rows, header first."""
    rows: list[list[str | int]] = [list(COLUMNS)]
    for g in grades:
        rows.append([
            _safe(g.student), _safe(g.notebook), g.passed, g.total, g.status,
            _safe(g.first_failed_hint()),
        ])  # fmt: skip
    return rows


def write_csv(grades: Iterable[Grade], path: Path) -> None:
    # a text the grader did not make printable (a path in an error) cannot stop the gradebook
    with path.open("w", newline="", encoding="utf-8", errors="backslashreplace") as f:
        csv.writer(f).writerows(csv_rows(grades))


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #1f2328; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border-bottom: 1px solid #d0d7de; padding: .25em .75em; text-align: left;
         vertical-align: top; }
.passed { color: #1a7f37; } .failed, .crashed, .timeout, .invalid, .error { color: #cf222e; }
h2 { margin-top: 2em; border-bottom: 1px solid #d0d7de; }
"""


def _summary(grades: Sequence[Grade]) -> str:
    counts: dict[str, int] = {}
    for g in grades:
        counts[g.status] = counts.get(g.status, 0) + 1
    parts = ", ".join(f"{n} {status}" for status, n in counts.items())
    return f"{len(grades)} notebooks: {parts}" if grades else "no notebooks"


def _scorecard(grade: Grade) -> str:
    e = html.escape
    head = (
        f"<h3>{e(grade.notebook)}: {grade.passed} of {grade.total} checks, "
        f'<span class="{e(grade.status)}">{e(grade.status)}</span></h3>'
    )
    reason = f"<p>{e(grade.reason)}</p>" if grade.reason else ""
    rows = "".join(
        f'<tr><td class="{"passed" if r.passed else "failed"}">{"✓" if r.passed else "✗"}</td>'
        f"<td>{e(r.exercise)}</td><td>{e(r.name)}</td>"
        f"<td>{'' if r.passed else e(r.hint)}</td></tr>"
        for r in grade.rows
    )
    table = f"<table><tbody>{rows}</tbody></table>" if rows else ""
    return head + reason + table


def render_html(grades: Sequence[Grade], title: str = "Gradebook") -> str:
    """One page: a table of every notebook, then each student's scorecards."""
    e = html.escape
    overview = "".join(
        f"<tr><td>{e(g.student)}</td><td>{e(g.notebook)}</td>"
        f"<td>{g.passed} / {g.total}</td>"
        f'<td class="{e(g.status)}">{e(g.status)}</td><td>{e(g.first_failed_hint())}</td></tr>'
        for g in grades
    )
    header = "".join(f"<th>{e(c.replace('_', ' '))}</th>" for c in COLUMNS)
    students = "".join(
        f"<h2>{e(student)}</h2>" + "".join(_scorecard(g) for g in group)
        for student, group in groupby(sorted(grades, key=lambda g: g.student),
                                      key=lambda g: g.student)
    )  # fmt: skip
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title>"
        f"<style>{_STYLE}</style></head><body><h1>{e(title)}</h1>"
        f"<p>{e(_summary(grades))}</p>"
        f"<table><thead><tr>{header}</tr></thead><tbody>{overview}</tbody></table>"
        f"{students}</body></html>\n"
    )


def write_html(grades: Sequence[Grade], path: Path) -> None:
    path.write_text(render_html(grades), encoding="utf-8", errors="backslashreplace")
