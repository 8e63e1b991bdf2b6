"""Lesson 16's structured verdict, as both editions store it: an input that does not fit is
sent back as is_error and repaired in 2 requests; a judge that never fits costs 1 + 2
requests, then fails; the schema mode takes 1."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from editions import NOTEBOOKS, chinese

EDITIONS = [NOTEBOOKS / "16_from_tests_to_evals.ipynb", chinese("16")]


def printed(lesson: Path, cell_id: str) -> list[str]:
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    cell = next(c for c in cells if c.get("id") == cell_id)
    return "".join("".join(o.get("text", "")) for o in cell["outputs"]).splitlines()


def verdict_and_requests(line: str) -> tuple[object, int]:
    found = re.search(r"(\{.*\}) \| \S+ (\d+)$", line)
    assert found, line
    return ast.literal_eval(found.group(1)), int(found.group(2))


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_an_input_that_does_not_fit_is_sent_back_and_repaired_once(lesson: Path) -> None:
    lines = printed(lesson, "cell-09c")
    assert lines[0].split()[-1] == "True"  # is_error
    assert "'reason'" in lines[1] and "record_verdict" in lines[1]  # what is missing, told
    value, requests = verdict_and_requests(lines[2])
    assert requests == 2 and isinstance(value, dict) and value["verdict"] == "PASS"


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_repairs_are_capped_and_the_schema_mode_takes_one_request(lesson: Path) -> None:
    lines = printed(lesson, "cell-09e")
    assert lines[0].startswith("NoValidOutput") and "'maybe'" in lines[0]
    assert re.findall(r"\d+", lines[0])[:2] == ["2", "3"]  # 2 repairs, 3 requests
    assert int(lines[1].split()[-1]) == 3
    value, requests = verdict_and_requests(lines[2])
    assert requests == 1 and isinstance(value, dict) and set(value) == {"verdict", "reason"}
