"""Lesson 19's numbers, as both editions store them: streaming moves the first text to the
time to first token and leaves the total as it was; a tool runs when its block ends; only
the whole input parses; a call cut by max_tokens does not parse and the SDK keeps half of it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from editions import NOTEBOOKS, chinese

EDITIONS = [NOTEBOOKS / "19_streaming_a_turn.ipynb", chinese("19")]
SECONDS = re.compile(r"(\d+\.\d\d) s")


def printed(lesson: Path, cell_id: str) -> str:
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    cell = next(c for c in cells if c.get("id") == cell_id)
    return "".join("".join(o.get("text", "")) for o in cell["outputs"])


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_streaming_moves_the_first_text_and_not_the_total(lesson: Path) -> None:
    first, whole, plain_first, plain_whole = map(float, SECONDS.findall(printed(lesson, "cell-08")))
    assert 0.6 < first < whole / 2 + 0.6 and whole == plain_first == plain_whole


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_tool_runs_when_its_block_ends_on_its_whole_input(lesson: Path) -> None:
    lines = printed(lesson, "cell-10").splitlines()
    times = [float(SECONDS.match(line).group(1)) for line in lines]  # type: ignore[union-attr]
    assert len(lines) >= 5 and times == sorted(times)
    ran = lines[-2]
    assert times[-2] == times[-3] and "notes/login.md" in ran  # at the last piece's time
    assert lines[-1].endswith("tool_use")


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_only_the_whole_input_parses_and_an_early_run_writes_part_of_it(lesson: Path) -> None:
    lines = printed(lesson, "cell-13").splitlines()
    verdicts = ["JSONDecodeError" in line for line in lines[:-1]]
    assert len(verdicts) >= 3 and verdicts == [True] * (len(verdicts) - 1) + [False]
    written, whole = map(int, re.findall(r"\d+", lines[-1].split(":", 1)[-1].split("：", 1)[-1]
                                         .replace("notes/login.md", ""))[-2:])
    assert 0 < written < whole


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_a_cut_call_does_not_parse_and_the_sdk_keeps_half_of_it(lesson: Path) -> None:
    lines = printed(lesson, "cell-15").splitlines()
    assert lines[0].endswith("max_tokens")
    joined = re.search(r"'(\{.*)'", lines[1]).group(1)  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        json.loads(joined)
    assert lines[-1].endswith("{'path': 'notes/login.md'}")
