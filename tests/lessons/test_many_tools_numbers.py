"""Lesson 20's numbers, as both editions store them: the tokens a request sends grow with the
tools defined; tool search sends a small part of them; the wrong-tool rate falls when the
descriptions tell the tools apart; another tenant's invoice leaks through a tool that takes
the tenant from the model."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from editions import NOTEBOOKS, chinese

EDITIONS = [NOTEBOOKS / "20_many_tools.ipynb", chinese("20")]


def printed(lesson: Path, cell_id: str) -> str:
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    cell = next(c for c in cells if c.get("id") == cell_id)
    return "".join("".join(o.get("text", "")) for o in cell["outputs"])


def numbers(line: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", line)]


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_each_request_pays_for_every_definition(lesson: Path) -> None:
    rows = [numbers(line) for line in printed(lesson, "cell-04").splitlines()]
    assert [row[0] for row in rows] == [1, 10, 30, 60, 120]
    tokens = [row[1] for row in rows]
    assert tokens == sorted(tokens) and tokens[-1] > 10_000 > tokens[-2] * 1.9


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_tool_search_sends_a_small_part_of_the_definitions(lesson: Path) -> None:
    loaded, searched = (numbers(line.split("[", 1)[1])
                        for line in printed(lesson, "cell-06").splitlines())
    assert len(loaded) == len(searched) == 4  # three requests and their sum
    assert sum(loaded[:3]) == loaded[3] and sum(searched[:3]) == searched[3]
    assert min(loaded[:3]) > 10_000 and searched[3] * 20 < loaded[3]


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_telling_descriptions_lower_the_wrong_tool_rate(lesson: Path) -> None:
    vague, clear = (numbers(line) for line in printed(lesson, "cell-08").splitlines())
    assert 100 in vague and 100 in clear  # trials; the other numbers: wrong, and its %
    wrong_vague, wrong_clear = (next(n for n in row if n != 100) for row in (vague, clear))
    assert wrong_vague >= 30 and wrong_clear < wrong_vague / 5


def test_both_editions_measure_the_same_wrong_tool_rates() -> None:
    en, zh = ([sorted(numbers(printed(lesson, "cell-08")))] for lesson in EDITIONS)
    assert en == zh


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_a_tenant_from_the_model_leaks_and_the_harness_bound_tool_does_not(lesson: Path) -> None:
    assert "Scorpio" in printed(lesson, "cell-12")
    bound = printed(lesson, "cell-10")
    assert "Coyote" in bound and "Roadrunner" in bound and "Scorpio" not in bound
    assert "'properties': {}" in bound
