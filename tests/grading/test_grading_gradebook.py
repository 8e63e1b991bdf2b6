"""The gradebook (CSV and HTML), the progress bar and the `looplab-grade` command."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest
from grading_notebooks import LESSON, LESSONS, SOLVED, STUB, check, write_notebook

from looplab.grading import Grade, Row
from looplab.grading.cli import main
from looplab.grading.progress import Progress
from looplab.grading.report import csv_rows, render_html

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
ROWS = (
    Row("check_token_formula(total_input)", "one turn sends S", True),
    Row("check_token_formula(total_input)", "no turns send nothing", False, "return 0 for 0"),
)
GRADES = [
    Grade("ada", LESSON, "failed", ROWS),
    Grade("=cmd|' /C calc'!A0", LESSON, "invalid", reason="not a notebook: not valid JSON"),
    Grade("<b>bob</b>", LESSON, "timeout", ROWS[:1], "cell 3 ran over 60 s and was interrupted"),
]


def test_the_csv_has_one_row_per_notebook_with_the_first_failed_hint() -> None:
    header, ada, evil, bob = csv_rows(GRADES)
    assert header == [
        "student", "notebook", "checks_passed", "checks_total", "status", "first_failed_hint",
        "points", "max_points", "late",
    ]  # fmt: skip
    assert ada == [
        "ada", LESSON, 1, 2, "failed",
        "check_token_formula(total_input): no turns send nothing — return 0 for 0", 5.0, 10.0, "",
    ]  # fmt: skip
    assert evil[0] == "'=cmd|' /C calc'!A0"  # a spreadsheet shows it, never runs it
    # a timed-out notebook counts none of the checks that passed before it stopped
    assert bob[2:] == [0, 1, "timeout", "cell 3 ran over 60 s and was interrupted", 0.0, 10.0, ""]


def test_the_html_report_escapes_and_shows_each_students_scorecard() -> None:
    page = render_html(GRADES)
    assert "<b>bob</b>" not in page and "&lt;b&gt;bob&lt;/b&gt;" in page
    assert page.count("<h2>") == 3
    # each exercise named once, under column headers; a failed check's hint beside it
    assert "<th>exercise</th><th>check</th><th>hint</th>" in page
    assert "✓</td><td>check_token_formula(total_input)</td><td>one turn sends S" in page
    assert "✗</td><td></td><td>no turns send nothing</td><td>return 0 for 0</td>" in page
    # after a timeout the cause is said once, above the table, not as each check's hint
    bob = page.split("&lt;b&gt;bob&lt;/b&gt;:", 1)[1]
    assert bob.count("cell 3 ran over 60 s") == 1
    assert "3 notebooks: 1 failed, 1 invalid, 1 timeout" in page


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_line_per_notebook_in_a_log_and_a_bar_on_a_terminal() -> None:
    log = io.StringIO()
    progress = Progress(2, log)
    for grade in GRADES[:2]:
        progress.update(grade)
    progress.close()
    assert log.getvalue().splitlines() == [
        f"1/2  ada: {LESSON} failed 1/2",
        f"2/2  =cmd|' /C calc'!A0: {LESSON} invalid 0/0",
    ]
    terminal = _Terminal()
    progress = Progress(2, terminal)
    progress.update(GRADES[0])
    drawn = terminal.getvalue()
    assert drawn.startswith("\r") and "1/2" in drawn and "\n" not in drawn


@pytest.mark.slow  # seconds
def test_the_command_grades_a_folder_and_writes_the_gradebook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_notebook(tmp_path / "submissions/ada" / LESSON, [SOLVED, check()])
    write_notebook(tmp_path / "submissions/bob" / LESSON, [STUB, check()])
    book = ["--csv", str(tmp_path / "book.csv"), "--html", str(tmp_path / "book.html")]
    assert main([str(tmp_path / "submissions"), "--lessons", str(LESSONS), "--jobs", "2",
                 "--timeout", "120", *book]) == 0
    with (tmp_path / "book.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert [r[:5] for r in rows] == [
        ["student", "notebook", "checks_passed", "checks_total", "status"],
        ["ada", LESSON, "6", "6", "passed"],
        ["bob", LESSON, "0", "6", "failed"],
    ]
    assert "ada" in (tmp_path / "book.html").read_text(encoding="utf-8")
    out, err = capsys.readouterr()
    assert out.strip().endswith(f"(1 failed, 1 passed): {tmp_path / 'book.csv'}, "
                                f"{tmp_path / 'book.html'}")  # fmt: skip
    assert f"ada: {LESSON} passed 6/6" in err and err.count("/2  ") == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--jobs", "0"], "'0' is not a whole number of jobs, 1 or more"),
        (["--timeout", "nan"], "'nan' is not a positive number of seconds"),
        (["--cell-timeout", "-1"], "'-1' is not a positive number of seconds"),
    ],
)
def test_bad_options_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path), *args])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


def test_a_missing_or_empty_folder_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err == f"looplab-grade: no folder {tmp_path / 'nope'}\n"
    assert main([str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"looplab-grade: no notebooks (*.ipynb) under {tmp_path}\n"


@pytest.mark.slow  # seconds
def test_the_command_is_installed_and_runs_as_a_module() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"looplab-grade": "looplab.grading.cli:main"}
    for module in ("looplab.grade", "looplab.grading"):
        shown = subprocess.run(
            [sys.executable, "-m", module, "--help"], capture_output=True, text=True, check=True
        ).stdout
        assert shown.startswith("usage: looplab-grade [-h] [--jobs JOBS] [--timeout S]")
        said = " ".join(shown.split("positional arguments:")[1].split("options:")[0].split())
        assert said.startswith("SUBMISSIONS_DIR the class's notebooks, one folder per student")
