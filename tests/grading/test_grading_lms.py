"""The gradebook a teacher hands to the LMS: points, the LMS CSV with a roster, feedback
pages, lateness, re-grading a few students, the policy for timeouts and invalid notebooks,
the HTML overview, and Gradescope's results.json. One class of real notebooks is graded
once for the module; `--update` and Gradescope grade one notebook each."""

from __future__ import annotations

import csv
import json
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest
from grading_notebooks import LESSON, LESSONS, SOLVED, STUB, WRONG, check, write_notebook

from looplab.grading.cli import main
from looplab.grading.results import POLICY

REPO = Path(__file__).resolve().parents[2]
DEADLINE = "2026-12-01T00:00:00Z"
POINTS = """[lessons]
"06_token_growth" = 30

[checks."06_token_growth"]
"no turns send nothing" = 12
"""
ROSTER = "id,name,folder\ns001,Ada Lovelace,ada\ns003,=chen,'=chen\ns009,Frank,frank\n"


def _at(path: Path, iso: str) -> None:
    when = datetime.fromisoformat(iso).replace(tzinfo=timezone.utc).timestamp()
    os.utime(path, (when, when))


def _class(root: Path) -> None:
    write_notebook(root / "ada" / LESSON, [SOLVED, check()])
    (root / "ada/timestamp.txt").write_text("2026-11-30 10:00:00.000000 UTC\n")
    _at(write_notebook(root / "bob" / LESSON, [WRONG, check()]), "2026-11-30T12:00:00")
    write_notebook(root / "=chen" / LESSON, [SOLVED, check()])  # mtime now; the stamp counts
    (root / "=chen/timestamp.txt").write_text("2026-12-02 09:00:00 UTC\n")  # 1 day 9 h late
    (root / "dan").mkdir()
    (root / "dan" / LESSON).write_text("{not json", encoding="utf-8")
    _at(root / "dan" / LESSON, "2026-12-01T00:00:01")  # one second late is one day late
    eve = write_notebook(root / "<b>eve" / LESSON, ["import time\ntime.sleep(30)", SOLVED, check()])
    _at(eve, "2026-12-01T00:00:00")  # at the deadline is on time


def _options(tmp: Path) -> list[str]:
    (tmp / "points.toml").write_text(POINTS, encoding="utf-8")
    (tmp / "roster.csv").write_text(ROSTER, encoding="utf-8")
    return ["--lessons", str(LESSONS), "--jobs", "2", "--cell-timeout", "2", "--timeout", "60",
            "--points", str(tmp / "points.toml"), "--deadline", DEADLINE,
            "--late-penalty", "10"]  # fmt: skip


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("gradebook")
    _class(tmp / "class")
    book = ["--csv", str(tmp / "book.csv"), "--html", str(tmp / "book.html"),
            "--lms-csv", str(tmp / "lms.csv"), "--roster", str(tmp / "roster.csv"),
            "--feedback", str(tmp / "feedback")]  # fmt: skip
    assert main([str(tmp / "class"), *_options(tmp), *book]) == 0
    return tmp


def _rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8-sig") as f:
        return list(csv.reader(f))


def test_the_lms_csv_has_a_row_per_student_with_points_ids_total_percent_and_late(
    graded: Path,
) -> None:
    # the roster's students in its order, and no one else: <b>eve, bob and dan are on no
    # roster (the grader lists them on stderr and in the HTML page)
    assert _rows(graded / "lms.csv") == [
        ["student", "id", "06_token_growth", "total", "percent", "late"],
        ["Ada Lovelace", "s001", "30.0", "30.0", "100.0", "0"],
        ["'=chen", "s003", "24.0", "24.0", "80.0", "2"],  # safe to open, matched on the roster
        ["Frank", "s009", "0.0", "0.0", "0.0", "0"],  # on the roster, handed nothing in
    ]


def test_the_long_csv_shows_points_late_work_and_one_checks_total(graded: Path) -> None:
    rows = {r[0]: r for r in _rows(graded / "book.csv")[1:]}
    assert rows["'=chen"][2:5] + rows["'=chen"][6:] == ["6", "6", "passed", "24.0", "30.0",
                                                        "2 days late, 20% off"]  # fmt: skip
    assert rows["bob"][2:4] + rows["bob"][6:] == ["1", "6", "12.0", "30.0", ""]
    assert rows["dan"][2:5] + rows["dan"][8:] == ["0", "6", "invalid", "1 day late, 10% off"]
    # every check passed before the timeout, yet a timed-out notebook counts none of them
    assert rows["<b>eve"][2:7] == ["0", "6", "timeout", "cell 1 ran over 2 s and was interrupted",
                                  "0.0"]  # fmt: skip


def test_the_html_overview_has_a_cell_under_every_header_and_each_students_total(
    graded: Path,
) -> None:
    page = (graded / "book.html").read_text(encoding="utf-8")
    grid = page.split('<table class="grid">', 1)[1].split("</table>", 1)[0]
    header, *rows = grid.split("<tr>")[1:]
    # students × lessons: name, id, one column per lesson, total, percent
    assert header.count("<th") == 5 and len(rows) == 6  # 3 on the roster, 3 folders not
    assert [r.count("<td") for r in rows] == [5] * 6
    assert rows[0].startswith("<td>Ada Lovelace</td><td>s001</td>") and ">30<" in rows[0]
    assert "<td>Frank</td><td>s009</td>" in rows[2] and "–" in rows[2]  # nothing handed in
    assert "<h2>bob: 12 of 30 points (40%)</h2>" in page
    assert "<h2>&lt;b&gt;eve: 0 of 30 points (0%)</h2>" in page and "<b>eve" not in page
    assert POLICY.replace("'", "&#x27;") in page


def test_each_student_gets_a_feedback_page_about_them_alone(graded: Path) -> None:
    pages = {p.read_text(encoding="utf-8").split("<p>", 1)[1].split(":", 1)[0]: p.read_text()
             for p in (graded / "feedback").glob("*.html")}  # fmt: skip
    assert sorted(pages) == ["&lt;b&gt;eve", "=chen", "Ada Lovelace", "bob", "dan"]
    for student, page in pages.items():
        others = [o for o in pages if o != student]
        assert not any(f"<p>{o}:" in page or f"<h2>{o}" in page for o in others)
    assert "bob: 12 of 30 points (40%)" in pages["bob"]
    assert "Ada Lovelace: 30 of 30 points" in pages["Ada Lovelace"]  # the roster's name
    assert "got 0 for fn(1, 400, 300), expected 400" in pages["bob"]  # the hint
    assert (
        "<p>2 days late, 20% off (handed in 2026-12-02 09:00 UTC, from timestamp.txt)</p>"
        in pages["=chen"]
    )
    assert "6 checks passed before it stopped; they do not count." in pages["&lt;b&gt;eve"]
    assert "<b>" not in pages["&lt;b&gt;eve"]


def test_the_policy_is_in_the_readme_and_the_commands_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert POLICY in " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    (tmp_path / "class/dan").mkdir(parents=True)
    (tmp_path / "class/dan" / LESSON).write_text("{", encoding="utf-8")
    assert main([str(tmp_path / "class"), "--lessons", str(LESSONS),
                 "--csv", str(tmp_path / "b.csv")]) == 0  # fmt: skip
    assert _rows(tmp_path / "b.csv")[1][2:5] == ["0", "6", "invalid"]
    assert f"policy: {POLICY}" in capsys.readouterr().out


def test_a_grader_failure_scores_0_of_the_lessons_checks_like_every_other_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from looplab.grading import batch

    def broken(*args: object) -> None:
        raise RuntimeError("a bug in the grader")

    write_notebook(tmp_path / "class/ada" / LESSON, [SOLVED, check()])
    write_notebook(tmp_path / "class/ada/99_no_such_lesson.ipynb", [SOLVED])
    monkeypatch.setattr(batch, "grade_submission", broken)
    assert main([str(tmp_path / "class"), "--lessons", str(LESSONS),
                 "--csv", str(tmp_path / "b.csv")]) == 0  # fmt: skip
    rows = {r[1]: r[2:6] for r in _rows(tmp_path / "b.csv")[1:]}
    why = "the grader failed: RuntimeError: a bug in the grader"
    assert rows[LESSON] == ["0", "6", "error", why]
    assert rows["99_no_such_lesson.ipynb"] == ["0", "0", "error", why]  # counts toward no lesson


def test_update_regrades_only_the_named_students_and_keeps_every_other_row(
    graded: Path, tmp_path: Path
) -> None:
    shutil.copytree(graded / "class", tmp_path / "class")
    _at(write_notebook(tmp_path / "class/bob" / LESSON, [SOLVED, check()]), "2026-11-30T12:00:00")
    shutil.copy(graded / "book.csv", tmp_path / "book.csv")
    before = (graded / "book.csv").read_text(encoding="utf-8").splitlines()
    assert main([str(tmp_path / "class"), *_options(tmp_path), "--update",
                 str(tmp_path / "book.csv"), "--only", "bob,=chen"]) == 0  # fmt: skip
    after = (tmp_path / "book.csv").read_text(encoding="utf-8").splitlines()
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert [before[i].split(",")[0] for i in changed] == ["bob"]
    assert after[changed[0]] == f"bob,{LESSON},6,6,passed,,30.0,30.0,"
    # =chen, written '=chen, was matched, graded again and put back where it was
    assert [r.split(",")[0] for r in after].count("'=chen") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--update", "book.csv"], "--update needs --only NAME[,NAME...]"),
        (["--only", "nobody"], "no notebooks of nobody under"),
        (["--points", "bad.toml"], "bad.toml [lessons] 06_token_growth: 'x' is not a number"),
        (["--deadline", "friday"], "'friday' is not an ISO 8601 time"),
        (["--roster", "bad.toml"], "bad.toml needs the columns id and name"),
        (["--update", "bad.toml", "--only", "ada"], "bad.toml is not a gradebook CSV of this"),
        (["--late-penalty", "101"], "'101' is not a percent a day, 0 to 100"),
    ],
)
def test_gradebook_mistakes_are_one_line_errors(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    write_notebook(tmp_path / "class/ada" / LESSON, [STUB, check()])
    (tmp_path / "bad.toml").write_text('[lessons]\n"06_token_growth" = "x"\n')
    monkeypatch.chdir(tmp_path)
    try:
        code = main([str(tmp_path / "class"), "--lessons", str(LESSONS), *args])
    except SystemExit as stopped:
        code = stopped.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_gradescope_root_writes_results_json_a_test_per_check(tmp_path: Path) -> None:
    write_notebook(tmp_path / "submission" / LESSON, [WRONG, check()])
    (tmp_path / "points.toml").write_text(POINTS, encoding="utf-8")
    assert main(["--gradescope-root", str(tmp_path), "--lessons", str(LESSONS),
                 "--points", str(tmp_path / "points.toml")]) == 0  # fmt: skip
    results = json.loads((tmp_path / "results/results.json").read_text(encoding="utf-8"))
    tests = results["tests"]
    assert [set(t) for t in tests] == [{"name", "score", "max_score", "output", "status"}] * 6
    assert [t["status"] for t in tests] == ["failed", "passed"] + ["failed"] * 4
    assert [t["max_score"] for t in tests] == [3.6, 12.0, 3.6, 3.6, 3.6, 3.6]
    assert [t["score"] for t in tests] == [0.0, 12.0, 0.0, 0.0, 0.0, 0.0]
    assert results["score"] == 12.0
    named = "06_token_growth: check_token_formula(total_input): no turns send nothing"
    assert tests[1]["name"] == named
    assert tests[0]["output"] == "got 0 for fn(1, 400, 300), expected 400"
    assert POLICY in results["output"]


def test_gradescope_with_nothing_handed_in_scores_zero(tmp_path: Path) -> None:
    (tmp_path / "submission").mkdir()
    assert main(["--gradescope-root", str(tmp_path), "--lessons", str(LESSONS)]) == 0
    results = json.loads((tmp_path / "results/results.json").read_text(encoding="utf-8"))
    assert (results["score"], results["tests"]) == (0.0, [])


def test_a_timestamp_that_is_not_a_time_falls_back_to_the_notebooks_time(tmp_path: Path) -> None:
    from looplab.grading.lateness import Lateness, parse_time
    from looplab.grading.submissions import find_submissions

    write_notebook(tmp_path / "ada" / LESSON, [STUB])
    _at(tmp_path / "ada" / LESSON, "2026-12-03T00:00:00")
    (tmp_path / "ada/timestamp.txt").write_text("last tuesday\n")
    (submission,) = find_submissions(tmp_path)
    assert Lateness(parse_time(DEADLINE), 10).days(submission) == 2
    assert Lateness().days(submission) == 0  # no deadline, never late


def test_feedback_shows_the_students_own_code_beside_its_checks_and_the_lateness_rule(
    graded: Path,
) -> None:
    pages = [p.read_text(encoding="utf-8") for p in (graded / "feedback").glob("*.html")]
    (bob,) = [p for p in pages if "<h1>Feedback: bob</h1>" in p]
    # bob's answer as he wrote it, then the checks of that exercise with their hints
    code = "<pre><code>def total_input(n_turns, S, delta):\n    return 0</code></pre>"
    beside = bob.split(code, 1)[1].split("</div>", 1)[0]
    assert "got 0 for fn(1, 400, 300), expected 400" in beside
    assert "<th>check</th><th>hint</th>" in beside
    assert ("Deadline: 2026-12-01 00:00 UTC; 10% of a notebook's points off for each day late, "
            "any part of a day counted as a day.").replace("'", "&#x27;") in bob  # fmt: skip
    # a notebook that is not one has no code to show, and still its scorecard
    (dan,) = [p for p in pages if "<h1>Feedback: dan</h1>" in p]
    assert "<pre>" not in dan and "invalid" in dan
