"""Lesson 16's judge, in both editions: its agreement is computed per class (a judge that
passes everything agrees 85% of the time and catches none of the wrong answers), its
verdict is read the way a real model writes it ("PASS."), and the answer check is called
what it is, a keyword check."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from editions import NOTEBOOKS, chinese

import looplab
from looplab import ScriptedModel, fake_client, say

EDITIONS = [NOTEBOOKS / "16_from_tests_to_evals.ipynb", chinese("16")]
JUDGE_CELL = "cell-08"


def cell(lesson: Path, cell_id: str) -> Any:
    return next(c for c in nbformat.read(lesson, 4).cells if c.get("id") == cell_id)


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_judges_agreement_is_shown_per_class(lesson: Path) -> None:
    printed = "".join(o.get("text", "") for o in cell(lesson, JUDGE_CELL).outputs)
    counts = ast.literal_eval(re.search(r"(\{\(.*\})", printed).group(1))  # type: ignore[union-attr]
    right = counts.get((True, True), 0) + counts.get((True, False), 0)
    wrong = counts.get((False, True), 0) + counts.get((False, False), 0)
    agreed = counts.get((True, True), 0) + counts.get((False, False), 0)
    assert wrong > 0  # there are wrong answers to catch
    assert f"{agreed / (right + wrong):.0%}" in printed
    assert f"{counts.get((True, True), 0)}/{right}" in printed
    assert f"{counts.get((False, False), 0)}/{wrong}" in printed  # 0/3: it caught none


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
@pytest.mark.parametrize(("said", "verdict"), [
    ("PASS", True), ("PASS.", True), ("Pass — same meaning.", True), ("FAIL.", False),
    ("", False), ("PASSABLE", False),
])  # fmt: skip
def test_the_judge_reads_a_verdict_as_a_real_model_writes_it(
    lesson: Path, said: str, verdict: bool
) -> None:
    tree = ast.parse(cell(lesson, JUDGE_CELL).source)
    judge = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "judge")
    names: dict[str, Any] = {"looplab": looplab,
                             "client": fake_client(ScriptedModel([say(said or " ")]))}  # fmt: skip
    exec(compile(ast.Module([judge], []), lesson.name, "exec"), names)
    assert names["judge"]("Answer: 3", "3") is verdict


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_a_substring_check_is_not_called_exact(lesson: Path) -> None:
    text = "\n".join(c.source for c in nbformat.read(lesson, 4).cells)
    assert not re.search(r"exact check|精确检查", text)
