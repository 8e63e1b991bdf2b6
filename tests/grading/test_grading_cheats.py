"""Grading cannot be passed without a working solution: one test per way it once could.

Every submission below is graded once, together, by `grade_folder` (the code behind
`looplab-grade`); each test then reads its own student's grade. Lesson 06's exercise is
used because its checker is quick: `check_token_formula(total_input)`, 6 checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from grading_notebooks import (
    CHECK,
    IMPORT,
    LESSON,
    LESSONS,
    SOLVED,
    STUB,
    WRONG,
    Cell,
    check,
    code,
    handed_out,
    raw,
    write_notebook,
)

from looplab.exercises import check_token_formula
from looplab.grading import Grade, grade_folder, grade_notebook

pytestmark = pytest.mark.slow  # seconds each: `make quick` leaves them out

REPO = Path(__file__).resolve().parents[2]
FAKE_CARD = (
    "print('check_token_formula(total_input): all 6 checks passed')\n"
    "print('✓ one turn sends S')\nprint('✓ no turns send nothing')"
)
PATCH = "import looplab.exercises as ex\n"


SUBMISSIONS: dict[str, list[Cell | str]] = {
    "honest": [SOLVED, check()],
    "untouched": [STUB, check()],
    "semicolon": [STUB, check(CHECK + ";")],
    "assigned": [STUB, check(IMPORT + "card = check_token_formula(total_input)")],
    "try_except": [
        STUB,
        check(IMPORT + "try:\n    check_token_formula(total_input)\n"
              "except Exception:\n    pass"),
    ],
    "capture": [STUB, check("%%capture\n" + CHECK)],
    "pass_only": [STUB, check("pass")],
    "fake_scorecard": [STUB, check(FAKE_CARD)],
    "clear_output": [
        STUB,
        check("from IPython.display import clear_output, display\n" + IMPORT
              + "display(check_token_formula(total_input))\nclear_output()"),
    ],
    "patched_checker": [
        STUB,
        PATCH + "ex.check_token_formula = lambda fn: ex.Scorecard(\n"
        "    'check_token_formula(total_input)', [ex.Check('all good', True)])",
        check(),
    ],
    "patched_str": [
        STUB,
        PATCH + "ex.Scorecard.__str__ = ex.Scorecard.__repr__ = (\n"
        "    lambda self: f'{self.title}: all {len(self)} checks passed')\n"
        "ex.Scorecard._repr_html_ = lambda self: ''",
        check(),
    ],
    "patched_check_class": [
        WRONG,
        PATCH + "_new = ex.Check.__new__\n"
        "ex.Check.__new__ = lambda cls, name, passed, hint='': _new(cls, name, True, '')",
        check(),
    ],
    "patched_code": [
        WRONG,
        PATCH + "ex.check_token_formula.__code__ = (lambda fn: [('ok', True, '')]).__code__",
        check(),
    ],
    "patched_math": [WRONG, "import math\nmath.isclose = lambda *a, **k: True", check()],
    "patched_grader": [
        WRONG,
        "import math\nmath.isclose = lambda *a, **k: True\n"
        "import looplab.grading.wire_kernel as wire\n"
        "wire.plain = lambda value: 400",
        check(),
    ],
    "redefined_checker": [
        STUB,
        "def check_token_formula(fn):\n"
        "    return 'check_token_formula(total_input): all 6 checks passed'",
        check("check_token_formula(total_input)"),
    ],
    "moved_tag": [STUB, code(CHECK), check("x = 1")],
    "string_tag": [STUB, code(CHECK), check("x = 1", tags="unchecked")],
    "edited_check": [
        STUB, check(IMPORT + "check_token_formula(lambda n, S, d: n * S + d * n * (n - 1) // 2)")
    ],
    "deleted_check": [STUB],
    "raw_check": [STUB, raw(CHECK)],
    "local_looplab": [STUB, check()],
}  # fmt: skip
FAKE_PACKAGE = {
    "looplab/__init__.py": "",
    "looplab/lessons/__init__.py": "",
    "looplab/lessons/exercises.py": "def check_token_formula(fn):\n    return []\n",
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Grade]:
    root = tmp_path_factory.mktemp("submissions")
    for student, cells in SUBMISSIONS.items():
        write_notebook(root / student / LESSON, cells)
    for name, text in FAKE_PACKAGE.items():
        (root / "local_looplab" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "local_looplab" / name).write_text(text)
    return {g.student: g for g in grade_folder(root, lessons=LESSONS, jobs=2)}


def assert_not_passed(grade: Grade) -> None:
    assert grade.total == 6, grade
    assert grade.status == "failed", grade
    assert grade.passed < 6, grade


def test_the_expected_count_is_the_checkers_own() -> None:
    def unwritten(*args: object) -> None:
        raise NotImplementedError

    assert len(check_token_formula(unwritten)) == 6


def test_an_honest_solution_passes_every_check(graded: dict[str, Grade]) -> None:
    grade = graded["honest"]
    assert (grade.status, grade.passed, grade.total) == ("passed", 6, 6)
    assert grade.first_failed_hint() == ""


def test_an_untouched_exercise_fails_every_check_with_the_stubs_message(
    graded: dict[str, Grade],
) -> None:
    grade = graded["untouched"]
    assert (grade.status, grade.passed, grade.total) == ("failed", 0, 6)
    assert grade.first_failed_hint() == (
        "check_token_formula(total_input): one turn sends S — "
        "NotImplementedError: the input tokens of n_turns requests in total"
    )


@pytest.mark.parametrize(
    "student",
    [
        "semicolon",  # `check(...);` shows no scorecard
        "assigned",  # `card = check(...)` shows none either
        "try_except",  # the check inside try/except
        "capture",  # %%capture hides the scorecard
        "pass_only",  # the check cell replaced by `pass`
        "fake_scorecard",  # prints a passing scorecard
        "clear_output",  # shows the card, then clears it
        "patched_checker",  # replaces the checker in the exercises module
        "patched_str",  # makes every Scorecard print as passed
        "patched_check_class",  # makes every Check passed
        "patched_code",  # swaps the checker's code
        "patched_math",  # math.isclose always true
        "patched_grader",  # replaces the grader's own functions in the kernel
        "redefined_checker",  # its own check_token_formula
        "moved_tag",  # the `check` tag on a harmless cell
        "string_tag",  # tags: "unchecked" (a string, once matched as a substring)
        "edited_check",  # checks a correct lambda instead of the exercise's function
        "deleted_check",  # no check cell at all
        "raw_check",  # the check cell turned into a raw cell
        "local_looplab",  # a looplab/ package in the student's folder
    ],
)
def test_a_submission_without_a_working_solution_does_not_pass(
    graded: dict[str, Grade], student: str
) -> None:
    assert_not_passed(graded[student])


def test_a_raw_check_cell_does_not_lower_the_total_of_a_two_exercise_lesson(
    tmp_path: Path,
) -> None:
    cells = [
        "import time\ndef my_run_agent(client, task, **limits):\n    raise NotImplementedError",
        check("from looplab.exercises import check_agent_loop, check_close_dangling\n\n"
              "check_agent_loop(my_run_agent)"),
        "def resumable(messages):\n    return messages",
        raw("check_close_dangling(resumable)"),
    ]  # fmt: skip
    write_notebook(tmp_path / "10_interview_drill.ipynb", cells)
    card = grade_notebook(tmp_path / "10_interview_drill.ipynb", timeout_s=60, lessons=LESSONS)
    assert len(card) == 8 + 7  # check_agent_loop's 8 and check_close_dangling's 7
    assert not card.passed
    assert str(card).splitlines()[0] == (
        "grade_notebook(10_interview_drill.ipynb): 3 of 15 checks passed"
    )
    # the second exercise was checked although its check cell is raw: 4 of its 7 hold
    dangling = [c for c in card if c.name.startswith("check_close_dangling(resumable)")]
    assert [c.passed for c in dangling] == [False, False, False, True, True, True, False]


def test_the_generated_exercise_copy_fails_and_the_lesson_itself_passes(tmp_path: Path) -> None:
    name = "02_the_message_list_is_the_state.ipynb"
    lesson = REPO / "notebooks" / name
    for student, text in (("copy", handed_out(lesson)),
                          ("lesson", lesson.read_text(encoding="utf-8"))):  # fmt: skip
        (tmp_path / student).mkdir()
        (tmp_path / student / name).write_text(text, encoding="utf-8")
    grades = {g.student: g for g in grade_folder(tmp_path, jobs=2)}
    assert (grades["copy"].status, grades["copy"].passed, grades["copy"].total) == ("failed", 0, 7)
    assert (grades["lesson"].status, grades["lesson"].passed) == ("passed", 7)
