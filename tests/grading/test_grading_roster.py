"""The roster is the truth, and the LMS files import unedited: a class of real notebooks
whose folders disagree with the roster in case, accents and punctuation, two students who
handed nothing in, a folder on no roster, a linked folder and a misnamed notebook, graded
once per LMS layout. Each layout is checked against the header its LMS documents."""

from __future__ import annotations

import csv
import unicodedata
from pathlib import Path

import pytest
from grading_notebooks import LESSON, LESSONS, SOLVED, WRONG, check, write_notebook

from looplab.grading.cli import main

pytestmark = pytest.mark.slow  # grades the class once per LMS layout

ROSTER = (
    "id,name\n"
    "1007,Hugo\n"
    "1008,Ana María\n"
    "1009,张三\n"
    "1010,Zoë Ng\n"  # handed nothing in
    "1011,Bo Li\n"  # handed nothing in
)


def _class(root: Path) -> None:
    write_notebook(root / "hugo" / LESSON, [SOLVED, check()])  # the roster says Hugo
    write_notebook(root / "ANA_MARIA" / LESSON, [WRONG, check()])  # Ana María
    write_notebook(root / "1009" / LESSON, [SOLVED, check()])  # 张三's id
    write_notebook(root / "ghost" / LESSON, [SOLVED, check()])  # on no roster
    write_notebook(root / "hugo" / "6_token_growth.ipynb", [SOLVED, check()])  # misnamed
    (root / "linked").symlink_to(root / "hugo", target_is_directory=True)


def _grade(tmp: Path, lms: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    if not (tmp / "class").exists():
        _class(tmp / "class")
    (tmp / "roster.csv").write_text(ROSTER, encoding="utf-8")
    code = main([str(tmp / "class"), "--lessons", str(LESSONS), "--jobs", "2",
                 "--roster", str(tmp / "roster.csv"), "--lms", lms,
                 "--lms-csv", str(tmp / f"{lms}.csv"), "--html", str(tmp / "book.html"),
                 "--feedback", str(tmp / "feedback")])  # fmt: skip
    assert code == 0
    return (tmp / f"{lms}.csv").read_text(encoding="utf-8"), capsys.readouterr().err


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(text.lstrip("\ufeff").splitlines()))


def test_canvas_gets_its_gradebook_columns_and_points_possible_and_every_roster_student(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, err = _grade(tmp_path, "canvas", capsys)
    # The header of Canvas's gradebook CSV, as "How do I import grades in the Gradebook?"
    # (Canvas Instructor Guide, community.canvaslms.com/t5/Instructor-Guide/
    # How-do-I-import-grades-in-the-Gradebook/ta-p/807) shows it: Student, ID, SIS User
    # ID, SIS Login ID, Section, then one column per assignment; the second row holds
    # "Points Possible". No total, percent or late column: Canvas would create assignments.
    assert text.startswith("\ufeff")  # Excel on Windows reads it as UTF-8
    assert _rows(text) == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "06_token_growth",
         "10_interview_drill"],
        ["Points Possible", "", "", "", "", "10.0", "10.0"],
        ["Hugo", "1007", "", "", "", "10.0", "0.0"],  # folder hugo, matched by name in any case
        ["Ana María", "1008", "", "", "", "1.67", "0.0"],  # ANA_MARIA, without the accent
        ["张三", "1009", "", "", "", "10.0", "0.0"],  # folder named by the id
        ["Zoë Ng", "1010", "", "", "", "0.0", "0.0"],
        ["Bo Li", "1011", "", "", "", "0.0", "0.0"],
    ]
    # every folder on no roster, every student without a submission, every link: stderr
    assert "folder 'ghost' is not on the roster" in err
    assert "Zoë Ng (1010) on the roster handed nothing in" in err
    assert "Bo Li (1011) on the roster handed nothing in" in err
    assert "linked was not graded: a symbolic link to a folder" in err
    page = (tmp_path / "book.html").read_text(encoding="utf-8")
    for said in ("folder &#x27;ghost&#x27; is not on the roster", "Zoë Ng (1010)",
                 "linked was not graded",
                 "6_token_growth.ipynb looks like lesson 06; rename it 06_token_growth.ipynb "
                 "or pass --match-loose"):  # fmt: skip
        assert said in page
    feedback = [p.read_text(encoding="utf-8") for p in (tmp_path / "feedback").glob("*.html")]
    assert sum("<h1>Feedback: Ana María</h1>" in p for p in feedback) == 1  # the real name
    assert not any("ANA_MARIA" in p.split("</h1>")[0] for p in feedback)


def test_moodle_gets_an_id_number_column_to_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, _ = _grade(tmp_path, "moodle", capsys)
    # Moodle's "Import grades - CSV file" (docs.moodle.org/en/Grade_import) maps one column
    # of the file ("Map from") to a user field ("Map to": ID number, useridnumber), and each
    # other column to a grade item; its own grade export names that column "ID number".
    assert text.startswith("\ufeff")
    assert _rows(text) == [
        ["ID number", "Name", "06_token_growth", "10_interview_drill"],
        ["1007", "Hugo", "10.0", "0.0"],
        ["1008", "Ana María", "1.67", "0.0"],
        ["1009", "张三", "10.0", "0.0"],
        ["1010", "Zoë Ng", "0.0", "0.0"],
        ["1011", "Bo Li", "0.0", "0.0"],
    ]


def test_generic_is_the_long_format_a_row_per_student_and_lesson(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, _ = _grade(tmp_path, "generic", capsys)
    # The long ("tidy") format: one observation per row (H. Wickham, "Tidy Data", Journal
    # of Statistical Software 59(10), 2014), the columns this module's doc names.
    assert _rows(text)[0] == ["student_id", "name", "lesson", "points", "max_points", "late_days"]
    assert _rows(text)[1:] == [
        row
        for i, n, p in [("1007", "Hugo", "10.0"), ("1008", "Ana María", "1.67"),
                        ("1009", "张三", "10.0"), ("1010", "Zoë Ng", "0.0"),
                        ("1011", "Bo Li", "0.0")]  # fmt: skip
        for row in ([i, n, "06_token_growth", p, "10.0", "0"],
                    [i, n, "10_interview_drill", "0.0", "10.0", "0"])  # fmt: skip
    ]


def test_match_loose_grades_a_notebook_named_like_a_lessons_title(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_notebook(tmp_path / "class/ada/6_token_growth.ipynb", [SOLVED, check()])
    book = tmp_path / "book.csv"
    assert main([str(tmp_path / "class"), "--lessons", str(LESSONS), "--csv", str(book)]) == 0
    assert _rows(book.read_text(encoding="utf-8"))[1][2:5] == ["0", "0", "invalid"]
    assert main([str(tmp_path / "class"), "--lessons", str(LESSONS), "--csv", str(book),
                 "--match-loose"]) == 0  # fmt: skip
    assert _rows(book.read_text(encoding="utf-8"))[1][2:5] == ["6", "6", "passed"]


FIRST = ["Ana", "José", "Zoë", "Chloé", "Björn", "Łukasz", "Renée", "Søren", "Hugo", "Inès"]
LAST = ["García", "Müller", "O'Brien", "Núñez"]


def test_a_class_of_40_whose_folders_disagree_with_the_roster_needs_no_edit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """37 folders named as students name them (lower case, no accents, underscores, the
    other order of names), 3 students who handed nothing in: the LMS CSV is the roster."""
    people = [(str(2026100 + i), f"{FIRST[i % 10]} {LAST[i // 10]}") for i in range(40)]
    roster = "id,name\n" + "".join(f'{i},"{n}"\n' for i, n in people)
    (tmp_path / "roster.csv").write_text(roster, encoding="utf-8")
    ways = [
        lambda n: n.lower().replace(" ", "_"),  # josé_garcía
        lambda n: n.upper(),  # ZOË GARCÍA
        lambda n: unicodedata.normalize("NFKD", n.translate(str.maketrans("Łø", "Lo")))
        .encode("ascii", "ignore").decode(),  # Lukasz Garcia, Soren Muller: typed in ASCII
        lambda n: n.replace(" ", "-").replace("'", ""),  # Renée-OBrien
    ]
    for k, (_, name) in enumerate(people[:37]):
        folder = ways[k % len(ways)](name)
        write_notebook(tmp_path / "class" / folder / LESSON, [SOLVED if k % 2 else WRONG, check()])
    assert main([str(tmp_path / "class"), "--lessons", str(LESSONS), "--jobs", "2",
                 "--roster", str(tmp_path / "roster.csv"), "--lms", "canvas",
                 "--lms-csv", str(tmp_path / "canvas.csv"),
                 "--html", str(tmp_path / "book.html")]) == 0  # fmt: skip
    rows = _rows((tmp_path / "canvas.csv").read_text(encoding="utf-8"))
    assert [r[:2] for r in rows[2:]] == [[n, i] for i, n in people]  # the roster, in order
    assert [r[5] for r in rows[2:]] == ["1.67", "10.0"] * 18 + ["1.67"] + ["0.0"] * 3
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if line.startswith("looplab-grade: ")]
    assert said == [f"looplab-grade: {n} ({i}) on the roster handed nothing in; their LMS "
                    "row is 0" for i, n in people[37:]]  # fmt: skip


def test_the_lms_submission_times_by_its_ids_count_for_the_matched_folders(
    tmp_path: Path,
) -> None:
    """An LMS exports submission times by its own ids: with a roster, `hugo`'s folder gets
    the time of 1007 (Hugo), and is late by it."""
    write_notebook(tmp_path / "class/hugo" / LESSON, [SOLVED, check()])
    (tmp_path / "roster.csv").write_text("id,name\n1007,Hugo\n", encoding="utf-8")
    (tmp_path / "times.csv").write_text("student,timestamp\n1007,2026-12-03T10:00:00Z\n")
    book = tmp_path / "book.csv"
    assert main([str(tmp_path / "class"), "--lessons", str(LESSONS), "--csv", str(book),
                 "--roster", str(tmp_path / "roster.csv"), "--submitted",
                 str(tmp_path / "times.csv"), "--deadline", "2026-12-01T00:00:00Z",
                 "--late-penalty", "10"]) == 0  # fmt: skip
    assert _rows(book.read_text(encoding="utf-8"))[1][-1] == "3 days late, 30% off"
