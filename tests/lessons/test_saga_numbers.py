"""Lesson 15's saga and circuit breaker, as both editions store them: the order undone last
first and nothing left charged; a Ctrl-C's journal undone later, once; three failures, then
two calls answered "circuit open" without running, and one trial after the cool-down; the
mistake's half-done order left charged."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from editions import NOTEBOOKS, chinese

EDITIONS = [NOTEBOOKS / "15_gates_for_side_effects.ipynb", chinese("15")]
DICT = re.compile(r"\{[^{}]*\}")


def printed(lesson: Path, cell_id: str) -> list[str]:
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    cell = next(c for c in cells if c.get("id") == cell_id)
    return "".join("".join(o.get("text", "")) for o in cell["outputs"]).splitlines()


def dicts(line: str) -> list[object]:
    return [ast.literal_eval(d) for d in DICT.findall(line)]


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_failed_order_is_undone_last_first_and_nothing_is_left(lesson: Path) -> None:
    lines = printed(lesson, "cell-10d")
    is_error, told = ast.literal_eval(lines[1].strip())
    assert is_error is True and told.startswith("book_shipping")
    assert told.index("30") < told.index("mug")  # the refund told before the release
    assert dicts(lines[2]) == [{"mug": 5}, {}, {}] and lines[2].endswith("[]")
    keys = [line.strip() for line in lines[4:]]
    assert keys == ["reserve-o-2002-mug", "charge-o-2002-30", "refund-o-2002-30",
                    "release-o-2002-mug"]


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_a_ctrl_c_leaves_a_journal_that_is_undone_later_once(lesson: Path) -> None:
    lines = printed(lesson, "cell-10f")
    assert lines[0].endswith("[('reserve_stock', 'done'), ('charge_card', 'started')]")
    assert dicts(lines[1]) == [{"o-2003": 30}, {"o-2003": "mug"}]
    assert len([line for line in lines if line.startswith("  ")]) == 2  # two undone
    assert lines[5].endswith("[('reserve_stock', 'undone'), ('charge_card', 'undone')]")
    assert dicts(lines[6]) == [{}, {}, {"mug": 5}] and lines[7].endswith("[]")


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_breaker_runs_three_refuses_two_and_closes_after_one_trial(lesson: Path) -> None:
    lines = printed(lesson, "cell-10i")
    told = lines[:5]
    assert all(line.split()[1] == "True" for line in told)
    assert ["book_shipping" in line for line in told] == [True] * 3 + [False] * 2
    assert all("circuit open" in line or "熔断器已断开" in line for line in told[3:])
    ran, refused = map(int, re.findall(r"\b\d+\b", lines[5]))
    assert (ran, refused) == (3, 2) and lines[5].endswith("open")
    assert lines[6].endswith("half-open") and "60" in lines[6]
    assert "o-306" in lines[7] and lines[8].endswith("closed")


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_mistake_leaves_the_card_charged_for_an_order_never_shipped(lesson: Path) -> None:
    lines = printed(lesson, "cell-13c")
    is_error, _told = ast.literal_eval(lines[1].strip())
    assert is_error is True
    assert dicts(lines[2]) == [{"mug": 4}, {"o-2002": "mug"}, {"o-2002": 30}]
