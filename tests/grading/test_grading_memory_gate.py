"""Lesson 17's exercise graded from the wire, in both editions: the student's gate runs in
its kernel, asked by the checker's loop in the grader over the kernel's line; the solution
passes, the stub fails every check, and a gate that refuses `create` alone fails the one
check that says so, in the submission's language."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from grading_notebooks import handed_out

from looplab.grading import grade_folder
from looplab.grading.lessons import load_lessons

REPO = Path(__file__).resolve().parents[2]
LESSONS = {"en": REPO / "notebooks" / "17_memory_is_a_tool.ipynb",
           "zh": next((REPO / "notebooks" / "zh-CN").glob("17_*.ipynb"))}  # fmt: skip
ONLY_CREATE = '''def memory_gate(call, read):
    if read and call["input"]["command"] == "create":
        return f"not stored: {read}"
'''


def gate_cell_replaced(lesson: Path, source: str) -> str:
    notebook = json.loads(lesson.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if "".join(cell["source"]).startswith("def memory_gate"):
            cell["source"] = source
    return json.dumps(notebook, ensure_ascii=False)



def test_the_grader_reads_the_exercise_and_its_4_checks_from_the_lesson() -> None:
    lesson = load_lessons(REPO / "notebooks").by_name["17_memory_is_a_tool.ipynb"]
    assert [s.expected for s in lesson.checks()] == [4]
    assert lesson.function("memory_gate") is not None

@pytest.mark.slow  # grades six notebooks
def test_the_memory_gate_is_graded_from_the_wire_in_both_editions(tmp_path: Path) -> None:
    for student in ("right", "stub", "wrong"):
        (tmp_path / student).mkdir()
    for lesson in LESSONS.values():
        name = lesson.name
        shutil.copyfile(lesson, tmp_path / "right" / name)
        (tmp_path / "stub" / name).write_text(handed_out(lesson), encoding="utf-8")
        (tmp_path / "wrong" / name).write_text(gate_cell_replaced(lesson, ONLY_CREATE),
                                               encoding="utf-8")
    grades = {(g.student, g.notebook): g for g in grade_folder(tmp_path, jobs=2)}
    assert len(grades) == 6
    for name in (lesson.name for lesson in LESSONS.values()):
        right, stub, wrong = (grades[s, name] for s in ("right", "stub", "wrong"))
        assert (right.status, right.passed) == ("passed", 4), right.first_failed_hint()
        assert stub.passed == 0 and stub.status == "failed"
        assert wrong.passed == 3 and wrong.status == "failed"
    english = grades["wrong", LESSONS["en"].name].first_failed_hint()
    chinese = grades["wrong", LESSONS["zh"].name].first_failed_hint()
    assert "these commands ran after the page was read: str_replace, insert, delete" in english
    assert "读过网页之后，这些命令还是执行了：str_replace, insert, delete" in chinese
