"""Lesson 18's exercise graded from the wire, in both editions: the student's
`plan_then_act` runs in its kernel on the grader's fake client and tools; the solution
passes, the stub fails every check, and a plan asked for without `tool_choice` fails the
one check that says so, in the submission's language."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from grading_notebooks import handed_out

from looplab.grading import grade_folder
from looplab.grading.lessons import load_lessons

REPO = Path(__file__).resolve().parents[2]
LESSONS = {"en": REPO / "notebooks" / "18_plan_then_act.ipynb",
           "zh": next((REPO / "notebooks" / "zh-CN").glob("18_*.ipynb"))}  # fmt: skip


def without_tool_choice(lesson: Path) -> str:
    notebook = json.loads(lesson.read_text(encoding="utf-8"))
    cell = next(c for c in notebook["cells"]
                if "".join(c["source"]).startswith("def plan_then_act"))
    source = "".join(cell["source"])
    assert "tool_choice=PLAN_CHOICE," in source
    cell["source"] = source.replace("tool_choice=PLAN_CHOICE,", "")
    return json.dumps(notebook, ensure_ascii=False)



def test_the_grader_reads_the_exercise_and_its_5_checks_from_the_lesson() -> None:
    lesson = load_lessons(REPO / "notebooks").by_name["18_plan_then_act.ipynb"]
    assert [s.expected for s in lesson.checks()] == [5]
    assert lesson.function("plan_then_act") is not None

@pytest.mark.slow  # grades six notebooks
def test_plan_then_act_is_graded_from_the_wire_in_both_editions(tmp_path: Path) -> None:
    for student in ("right", "stub", "wrong"):
        (tmp_path / student).mkdir()
    for lesson in LESSONS.values():
        shutil.copyfile(lesson, tmp_path / "right" / lesson.name)
        (tmp_path / "stub" / lesson.name).write_text(handed_out(lesson), encoding="utf-8")
        (tmp_path / "wrong" / lesson.name).write_text(without_tool_choice(lesson),
                                                      encoding="utf-8")
    grades = {(g.student, g.notebook): g for g in grade_folder(tmp_path, jobs=2)}
    assert len(grades) == 6
    for name in (lesson.name for lesson in LESSONS.values()):
        right, stub, wrong = (grades[s, name] for s in ("right", "stub", "wrong"))
        assert (right.status, right.passed) == ("passed", 5), right.first_failed_hint()
        assert stub.passed == 0 and stub.status == "failed"
        assert wrong.passed == 4 and wrong.status == "failed"
    english = grades["wrong", LESSONS["en"].name].first_failed_hint()
    chinese = grades["wrong", LESSONS["zh"].name].first_failed_hint()
    assert "the plan requests sent tool_choice=[None, None, None]" in english
    assert "要计划的请求发出的是 tool_choice=[None, None, None]" in chinese
