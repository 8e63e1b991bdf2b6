"""Lesson 06 reproduces the article's numbers in its STORED outputs, in both editions.

The article: a first request of S = 400 tokens, Δ = 300 more each turn, so 17,500 input
tokens over 10 turns, 65,000 over 20, about 3.7× for twice the turns. The lesson says its
measured run lands on exactly these; nbval only checks that a re-run prints what is stored,
so a wrong number, once stored, would pass it. These tests read what is stored.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from editions import NOTEBOOKS, chinese

EDITIONS = [NOTEBOOKS / "06_token_growth.ipynb", chinese("06")]
S, DELTA, TEN, TWENTY = 400, 300, 17_500, 65_000


def printed(lesson: Path, cell_id: str) -> str:
    """What the cell with `cell_id` printed, as stored."""
    cell = next(c for c in nbformat.read(lesson, 4).cells if c.get("id") == cell_id)
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def numbers(line: str) -> list[int]:
    """The integers on a line, thousands separators and signs read: '+300' -> 300."""
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", line)]


def rows(text: str) -> list[list[int]]:
    """The table rows of a printout: the lines that start with a turn number."""
    return [numbers(line) for line in text.splitlines() if re.match(r"\s*\d+\s", line)]


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_measured_run_is_the_articles_run(lesson: Path) -> None:
    table = rows(printed(lesson, "cell-11"))  # turn, sent, (+grew), cumulative, formula
    assert [r[0] for r in table] == list(range(1, 21)), table
    assert table[0][1] == S, f"the first request sent {table[0][1]} tokens, not S = {S}"
    assert all(r[2] == DELTA for r in table[1:]), "every turn adds Δ = 300"
    measured = {r[0]: r[-2] for r in table}
    assert (measured[10], measured[20]) == (TEN, TWENTY), measured
    assert all(r[-2] == r[-1] for r in table), "the measured column is the formula's"


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_fit_finds_the_articles_s_and_delta(lesson: Path) -> None:
    assert numbers(printed(lesson, "cell-13")) == [S, DELTA]


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_formula_gives_the_articles_totals_and_ratio(lesson: Path) -> None:
    text = printed(lesson, "cell-06")
    assert f"{TEN:,}" in text and f"{TWENTY:,}" in text and "3.7" in text, text


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_cached_run_agrees_with_the_model(lesson: Path) -> None:
    lines = printed(lesson, "cell-21").splitlines()
    assert len(lines) == 2 and all(line.rstrip().endswith("True") for line in lines), lines
    cached = rows(printed(lesson, "cell-19"))  # turn, input, cache write, cache read, total
    assert cached[0][2] == S and cached[1][2] == DELTA, cached[:2]
    assert cached[-1][0] == 20 and cached[-1][-1] == S + 19 * DELTA, cached[-1]


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_plain_strategy_costs_the_articles_numbers(lesson: Path) -> None:
    first = printed(lesson, "cell-23").splitlines()[1]
    assert numbers(first)[-4:-1] == [TEN, TWENTY, 3], first  # 3.71× read as 3, 71
    assert "3.71×" in first, first
