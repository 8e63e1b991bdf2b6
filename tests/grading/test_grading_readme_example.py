"""The README's worked example for teachers is what the grader writes: four students
graded on the real lessons 03 and 06, with the README's points, roster and deadline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from grading_notebooks import handed_out

from looplab.grading import outputs
from looplab.grading.cli import main
from looplab.grading.lms import FORMATS, write_lms_csv
from looplab.grading.marks import Gradebook

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
L03, L06 = "03_stop_reason_is_the_fork.ipynb", "06_token_growth.ipynb"
HANDED_IN = {  # student: (lesson, where their copy comes from), the time it was collected
    "ada": ([(L03, "notebooks"), (L06, "notebooks")], "2026-12-01 20:14:03 UTC"),
    "bob": ([(L03, "notebooks/exercises"), (L06, "notebooks")], "2026-12-01 23:50:00 UTC"),
    "chen": ([(L06, "notebooks")], "2026-12-03 09:30:00 UTC"),
}


def _files(readme: str) -> dict[str, str]:
    """The README's example files: a fenced block right after a line naming it."""
    found = re.findall(r"`([\w.]+)`[:：]\n\n *```\w*\n(.*?)\n *```", readme, re.S)
    return {name: "\n".join(line.strip() for line in body.splitlines()) + "\n"
            for name, body in found}  # fmt: skip


@pytest.mark.parametrize("readme", ["README.md", "README.zh-CN.md"])
def test_the_readmes_lms_csv_of_four_students_is_what_the_grader_writes(
    tmp_path: Path, readme: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _files((REPO / readme).read_text(encoding="utf-8"))
    shown = ("points.toml", "roster.csv", "lms.csv", *(f"{lms}.csv" for lms in FORMATS))
    assert set(shown) <= set(files)
    if readme != "README.md":  # one grading serves both: the files must be the same
        english = _files((REPO / "README.md").read_text(encoding="utf-8"))
        assert {k: files[k] for k in shown} == {k: english[k] for k in shown}
        return
    for student, (lessons, when) in HANDED_IN.items():
        (tmp_path / "submissions" / student).mkdir(parents=True)
        for lesson, source in lessons:
            text = (handed_out(REPO / "notebooks" / lesson) if source.endswith("exercises")
                    else (REPO / source / lesson).read_text(encoding="utf-8"))
            (tmp_path / "submissions" / student / lesson).write_text(text, encoding="utf-8")
        (tmp_path / "submissions" / student / "timestamp.txt").write_text(when + "\n")
    (tmp_path / "submissions/dana").mkdir()
    (tmp_path / "submissions/dana" / L03).write_text('{"cells": [', encoding="utf-8")
    (tmp_path / "submissions/dana/timestamp.txt").write_text("2026-12-01 22:00:00 UTC\n")
    for name in ("points.toml", "roster.csv"):
        (tmp_path / name).write_text(files[name], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    books: list[Gradebook] = []
    real = outputs.write_lms_csv
    monkeypatch.setattr(outputs, "write_lms_csv",
                        lambda book, *a: (books.append(book), real(book, *a)))  # fmt: skip
    assert main(["submissions/", "--points", "points.toml", "--roster", "roster.csv",
                 "--lms-csv", "lms.csv", "--deadline", "2026-12-02T00:00:00+00:00",
                 "--late-penalty", "10", "--feedback", "feedback/",
                 "--lessons", str(REPO / "notebooks")]) == 0  # fmt: skip
    written = (tmp_path / "lms.csv").read_text(encoding="utf-8")
    assert written.startswith("\ufeff")  # Excel reads it as UTF-8
    assert written[1:].replace("\r\n", "\n") == files["lms.csv"]
    for lms in FORMATS:  # the same grading in each LMS's layout, as its file is written
        write_lms_csv(books[0], tmp_path / f"{lms}.csv", lms)
        written = (tmp_path / f"{lms}.csv").read_text(encoding="utf-8-sig")
        assert written.replace("\r\n", "\n") == files[f"{lms}.csv"], lms
