"""Lessons 05 and 12 run the API's server-side versions (a task budget; context editing) on
the fake beside looplab's client-side ones, and their prose quotes what the runs printed.
nbval checks that a re-run prints what is stored, never that the prose agrees with it: these
tests read the STORED outputs and the text around them, in both editions."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from editions import NOTEBOOKS, chinese

GATES = {"en": NOTEBOOKS / "05_stop_gates.ipynb", "zh-CN": chinese("05")}
COMPACTION = {"en": NOTEBOOKS / "12_compaction_is_a_loop_step.ipynb", "zh-CN": chinese("12")}
EDITIONS = ["en", "zh-CN"]


def cell(lesson: Path, cell_id: str) -> nbformat.NotebookNode:
    return next(c for c in nbformat.read(lesson, 4).cells if c.get("id") == cell_id)


def printed(lesson: Path, cell_id: str) -> str:
    """What the cell printed, as stored."""
    return "".join(o.get("text", "") for o in cell(lesson, cell_id).outputs
                   if o.output_type == "stream")


def numbers(text: str) -> list[int]:
    """The integers of `text`, thousands separators read ('20,232' -> 20232)."""
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\d|\d", text)]


def lines(text: str) -> list[list[int]]:
    return [numbers(line) for line in text.splitlines()]


@pytest.mark.parametrize("edition", EDITIONS)
def test_lesson_05_says_what_the_gate_and_the_task_budget_did(edition: str) -> None:
    lesson = GATES[edition]
    gate, server, billed, countdown = lines(printed(lesson, "cell-18-b"))
    used, budget, turns = gate[-3:]
    assert budget == 20_000 and used > budget and turns == 9, gate
    assert "end_turn" in printed(lesson, "cell-18-b").splitlines()[1]
    assert server[0] == 13, server  # 12 pages read, then the answer
    gate_billed, server_billed = billed
    assert gate_billed <= used < server_billed, "the task budget's run is billed past the gate"
    assert server_billed > 2 * budget
    left, total = sorted(countdown)
    assert total == budget and 0 < left < budget
    prose = cell(lesson, "cell-18-d").source
    for shown in (f"{turns}", f"{used:,}", f"{budget:,}", f"{server_billed:,}", f"{left:,}"):
        assert shown in prose, f"{edition}: the text does not say {shown}"


@pytest.mark.parametrize("edition", EDITIONS)
def test_lesson_05_shows_the_model_wrapping_up_when_little_is_left(edition: str) -> None:
    text = printed(GATES[edition], "cell-18-e")
    assert text.startswith("end_turn | 6 ")
    first, last = numbers(text.split("|", 2)[2])[:2]
    assert (first, last) == (1, 5), text
    assert "remaining\": 4_000" in cell(GATES[edition], "cell-18-e").source
    assert "4,000" in cell(GATES[edition], "cell-18-d").source


def test_lesson_05_shows_the_same_numbers_in_both_editions() -> None:
    for cell_id in ("cell-18-b", "cell-18-e"):  # a Chinese sentence may order them otherwise
        assert set(numbers(printed(GATES["en"], cell_id))) == set(
            numbers(printed(GATES["zh-CN"], cell_id))), cell_id


@pytest.mark.parametrize("edition", EDITIONS)
def test_lesson_12_says_what_server_side_clearing_did(edition: str) -> None:
    lesson = COMPACTION[edition]
    answer, per_request, total, cleared, whole = printed(lesson, "cell-11-a").splitlines()
    sent = numbers(per_request)
    assert numbers(total)[0] == sum(sent)
    assert all(n <= 2_500 for n in sent[:5]) and sent[5] < sent[4], sent
    dropped = numbers(cleared)
    assert dropped[:5] == [0] * 5 and dropped[5:] == list(range(3, 11)), dropped
    assert whole.endswith("True")
    plain = numbers(printed(lesson, "cell-04").splitlines()[-1])[0]
    compacted = numbers(printed(lesson, "cell-08").splitlines()[3])[0]
    assert sum(sent) < compacted < plain
    prose = cell(lesson, "cell-11-c").source
    for shown in (sum(sent), compacted, plain):
        assert f"{shown:,}" in prose, f"{edition}: the text does not say {shown:,}"


def test_lesson_12_server_side_numbers_are_the_same_in_both_editions() -> None:
    assert numbers(printed(COMPACTION["en"], "cell-11-a")) == numbers(
        printed(COMPACTION["zh-CN"], "cell-11-a"))
    assert numbers(printed(COMPACTION["en"], "cell-04")) == numbers(
        printed(COMPACTION["zh-CN"], "cell-04"))
