"""Where a grade depends on something the student could write, the grader trusts the
teacher's source first: the LMS's submission times over `timestamp.txt`, and no class
graded without a sandbox unless the teacher says so. Nothing here runs a kernel."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from grading_notebooks import LESSON, LESSONS, STUB, write_notebook

from looplab.grading import Options, batch, grade_folder
from looplab.grading.cli import main
from looplab.grading.feedback import render_feedback
from looplab.grading.kernels import GraderError
from looplab.grading.lateness import Lateness, load_submitted, parse_time
from looplab.grading.marks import make_gradebook
from looplab.grading.results import Grade
from looplab.grading.submissions import find_submissions

DEADLINE = parse_time("2026-12-01T00:00:00Z")


def _class(root: Path) -> Path:
    write_notebook(root / "ada" / LESSON, [STUB])
    (root / "ada/timestamp.txt").write_text("2000-01-01 00:00:00 UTC\n")  # her own word
    write_notebook(root / "bob" / LESSON, [STUB])
    (root / "bob/timestamp.txt").write_text("2026-11-30 10:00:00 UTC\n")
    lms = root.parent / "submitted.csv"
    lms.write_text("student,timestamp\nada,2026-12-02T10:00:00Z\nada,2026-12-01T09:00:00Z\n")
    return lms


def _page(root: Path, lateness: Lateness, student: str) -> tuple[int, str]:
    submissions = find_submissions(root)
    grades = [Grade(s.student, s.shown, "failed") for s in submissions]
    book = make_gradebook(grades, None, None, lateness, submissions)
    (mark,) = [m for m in book.marks if m.grade.student == student]
    return mark.late_days, render_feedback(book, student)


def test_the_lms_time_beats_a_timestamp_the_student_wrote(tmp_path: Path) -> None:
    lms = _class(tmp_path / "class")
    lateness = Lateness(DEADLINE, 10, load_submitted(lms))
    days, page = _page(tmp_path / "class", lateness, "ada")
    assert days == 2  # her latest submission, 1 day 10 h late; not 2000-01-01
    assert "2 days late, 20% off (handed in 2026-12-02 10:00 UTC, from the LMS export" in page
    days, page = _page(tmp_path / "class", lateness, "bob")  # not in the export
    assert days == 0 and "on time (handed in 2026-11-30 10:00 UTC, from timestamp.txt)" in page


def test_without_the_lms_export_the_timestamp_counts_and_the_page_says_so(
    tmp_path: Path,
) -> None:
    _class(tmp_path / "class")
    days, page = _page(tmp_path / "class", Lateness(DEADLINE, 10), "ada")
    assert days == 0 and "from timestamp.txt" in page


@pytest.mark.parametrize(
    ("text", "message"),
    [("name,when\nada,2026-12-01\n", "line 2 has no student"),
     ("student,timestamp\nada,friday\n", "'friday' is not an ISO 8601 time")],
)  # fmt: skip
def test_an_lms_export_the_grader_cannot_read_is_told_before_grading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    _class(tmp_path / "class")
    (tmp_path / "bad.csv").write_text(text)
    argv = [str(tmp_path / "class"), "--lessons", str(LESSONS), "--submitted",
            str(tmp_path / "bad.csv")]  # fmt: skip
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_without_bubblewrap_a_class_is_refused_unless_unsandboxed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(batch, "_said", [])
    _class(tmp_path / "class")
    with pytest.raises(GraderError, match="or grade anyway with --unsandboxed"):
        grade_folder(tmp_path / "class", lessons=LESSONS)
    assert main([str(tmp_path / "class"), "--lessons", str(LESSONS)]) == 2
    err = capsys.readouterr().err
    assert "bubblewrap (bwrap) is not installed" in err
    assert "can read the other students' notebooks and the lessons' solutions" in err
    server = batch.start_server([tmp_path])
    batch.check_sandbox(server, 1, unsandboxed=False)  # one student: only their own to lose
    batch.check_sandbox(server, 2, unsandboxed=True)  # the teacher said so
    assert Options(unsandboxed=True).unsandboxed
