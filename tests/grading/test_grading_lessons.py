"""What the grader checks comes from the lessons: their check cells, and each checker's
own count of checks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from grading_notebooks import check, code, handed_out, write_notebook

from looplab.grading import grade_folder
from looplab.grading.lessons import LessonsNotFound, load_lessons

REPO = Path(__file__).resolve().parents[2]


def test_every_check_cell_handed_out_is_one_the_grader_runs() -> None:
    lessons = load_lessons(REPO / "notebooks")
    copies = sorted((REPO / "notebooks/exercises").glob("[0-9][0-9]_*.ipynb"))
    assert copies
    for path in copies:
        cells = json.loads(handed_out(REPO / "notebooks" / path.name))["cells"]
        tagged = {
            "".join(c["source"]).strip()
            for c in cells
            if "check" in c.get("metadata", {}).get("tags", [])
        }
        lesson = lessons.match(path.name)
        assert lesson is not None and lesson.sources == tagged, path.name


def test_each_package_checker_reports_its_own_number_of_checks() -> None:
    lessons = load_lessons(REPO / "notebooks")
    counts = {name: [s.expected for s in lesson.checks()] for name, lesson in
              lessons.by_name.items()}  # fmt: skip
    assert counts["02_the_message_list_is_the_state.ipynb"] == [7]
    assert counts["04_the_loop_by_hand.ipynb"] == [8]
    assert counts["05_stop_gates.ipynb"] == [7]
    assert counts["06_token_growth.ipynb"] == [3]
    assert counts["10_interview_drill.ipynb"] == [4]


def test_a_submission_is_matched_to_its_lesson_by_name() -> None:
    lessons = load_lessons(REPO / "notebooks")
    for name in ("05_stop_gates.ipynb", "ada_05_stop_gates.ipynb", "05_stop_gates (1).ipynb"):
        lesson = lessons.match(name)
        assert lesson is not None and lesson.name == "05_stop_gates.ipynb"
    assert lessons.match("my_notes.ipynb") is None


def test_a_chinese_copy_is_matched_to_the_lesson_with_its_number() -> None:
    """The Chinese edition's files have Chinese names: a copy named like one, as a student
    hands it in, is graded as the lesson with the same number."""
    lessons = load_lessons(REPO / "notebooks")
    copies = sorted((REPO / "notebooks/zh-CN/exercises").glob("[0-9][0-9]_*.ipynb"))
    assert {p.name[:2] for p in copies} >= {n[:2] for n in lessons.by_name}
    for copy in copies:
        if copy.name[:2] not in {n[:2] for n in lessons.by_name}:
            continue
        stem = copy.name.removesuffix(".ipynb")
        for name in (copy.name, f"2023001_{copy.name}", f"{stem} (1).ipynb"):
            lesson = lessons.match(name)
            assert lesson is not None and lesson.name[:2] == copy.name[:2], name
    assert lessons.match("05_笔记.ipynb") is None


def test_a_chinese_lesson_handed_in_under_its_chinese_name_is_graded(tmp_path: Path) -> None:
    lesson = next((REPO / "notebooks/zh-CN").glob("02_*.ipynb"))
    shutil.copyfile(lesson, tmp_path / f"2023001_{lesson.name}")
    [grade] = grade_folder(tmp_path, jobs=1)
    assert (grade.student, grade.notebook) == ("2023001", f"2023001_{lesson.name}")
    assert (grade.status, grade.passed, grade.total) == ("passed", 7, 7), grade.reason


def test_a_folder_without_lessons_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LessonsNotFound, match="no lesson in .* has check cells"):
        load_lessons(tmp_path)
    with pytest.raises(LessonsNotFound, match="is not a folder of lessons"):
        load_lessons(tmp_path / "missing")


INLINE_CHECK = """from looplab.exercises import Check, Scorecard


def check_double(fn):
    card = Scorecard(f"check_double({fn.__name__})")
    for x in (1, 2, 3):
        try:
            ok = fn(x) == 2 * x
        except Exception:
            ok = False
        card.append(Check(f"double({x})", ok, "return 2 * x"))
    return card


check_double(double)"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, int, int, str]]:
    """A lesson with an assert check cell and a checker it defines itself, graded."""
    root = tmp_path_factory.mktemp("tiny")
    write_notebook(root / "lessons/01_tiny.ipynb", [
        "%matplotlib inline\nanswer = 42",
        check('assert answer == 42, "set answer to 42"'),
        "def double(x):\n    return 2 * x",
        check(INLINE_CHECK),
    ])  # fmt: skip
    submissions = {
        "right": ["answer = 42", "def double(x):\n    return x + x"],
        "wrong": [
            "answer = 41",
            code("def double(x):\n    return x", tags=["check"]),
            "def check_double(fn):\n    return []",  # shadowing the lesson's checker
        ],
        "nothing": ["answer = 42"],
    }
    for student, cells in submissions.items():
        write_notebook(root / "submissions" / student / "01_tiny.ipynb", cells)  # type: ignore[arg-type]
    grades = grade_folder(root / "submissions", lessons=root / "lessons", jobs=2)
    return {g.student: (g.status, g.passed, g.total, g.first_failed_hint()) for g in grades}


@pytest.mark.slow  # seconds
def test_a_check_cell_without_a_checker_passes_when_it_raises_nothing(
    tiny: dict[str, tuple[str, int, int, str]],
) -> None:
    assert tiny["right"] == ("passed", 4, 4, "")


@pytest.mark.slow  # seconds
def test_a_checker_the_lesson_defines_is_run_from_the_lessons_copy(
    tiny: dict[str, tuple[str, int, int, str]],
) -> None:
    assert tiny["wrong"] == (
        "failed", 0, 4, "check cell 2: runs without an error — AssertionError: set answer to 42"
    )  # fmt: skip


@pytest.mark.slow  # seconds
def test_a_missing_function_fails_its_exercise(tiny: dict[str, tuple[str, int, int, str]]) -> None:
    status, passed, total, hint = tiny["nothing"]
    assert (status, passed) == ("failed", 1)
    assert hint == "check_double(double): check 1 — NameError: name 'double' is not defined"


@pytest.mark.slow
def test_every_lesson_of_both_editions_passes_as_its_own_submission(tmp_path: Path) -> None:
    """Each lesson holds its solutions: graded as a submission, it passes every check."""
    for edition, folder in (("en", REPO / "notebooks"), ("zh", REPO / "notebooks/zh-CN")):
        (tmp_path / edition).mkdir()
        for lesson in folder.glob("[0-9][0-9]_*.ipynb"):
            shutil.copyfile(lesson, tmp_path / edition / lesson.name)
    grades = grade_folder(tmp_path, jobs=4)  # the lessons' tools wait as much as they compute
    assert len(grades) == 2 * len(load_lessons(REPO / "notebooks").by_name)
    failed = [(g.student, g.notebook, g.status, g.first_failed_hint()) for g in grades
              if g.status != "passed"]  # fmt: skip
    assert failed == []


@pytest.mark.slow  # grades three lessons
def test_a_chinese_copy_is_checked_in_chinese_and_its_right_answers_pass(tmp_path: Path) -> None:
    """The checks run in the grader as in the lesson, in the lesson's language: the gate
    writes Chinese, so the Chinese solution's assertion holds; the tools refuse in Chinese,
    and a wrong answer is told so in Chinese."""
    lessons = {n: next((REPO / "notebooks/zh-CN").glob(f"{n}_*.ipynb")) for n in ("07", "08")}
    (tmp_path / "right").mkdir()
    (tmp_path / "wrong").mkdir()
    for lesson in lessons.values():
        shutil.copyfile(lesson, tmp_path / "right" / lesson.name)
    notebook = json.loads(lessons["07"].read_text(encoding="utf-8"))
    for cell in notebook["cells"]:  # answers a ToolError with a text of its own
        source = "".join(cell["source"])
        cell["source"] = source.replace('"content": e.content,', '"content": "拒绝",')
    (tmp_path / "wrong" / lessons["07"].name).write_text(json.dumps(notebook), encoding="utf-8")
    grades = {(g.student, g.notebook[:2]): g for g in grade_folder(tmp_path, jobs=2)}
    for n in ("07", "08"):
        assert grades["right", n].status == "passed", grades["right", n].first_failed_hint()
    wrong = grades["wrong", "07"]
    assert wrong.status == "failed"
    assert "模型读到的是 '拒绝'，不是 ToolError 的文字" in wrong.first_failed_hint()
