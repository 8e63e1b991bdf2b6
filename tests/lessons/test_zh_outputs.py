"""The Chinese lessons show Chinese: a phrase of English words in a stored output of a
Chinese lesson is a message looplab or the lesson forgot to translate, unless it is text
that belongs to someone else and is shown as it is: the API's own 400 texts, the SDK's,
Python's, pytest's, MCP's or a library's, and the demo repository's files and test output.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from editions import LESSON_GLOB, NOTEBOOKS

CHINESE = sorted((NOTEBOOKS / "zh-CN").glob(LESSON_GLOB))
WORD = r"(?<![\w.'/@-])[A-Za-z]{2,}(?![\w'/-])"
PHRASE = re.compile(f"{WORD}(?: {WORD})+")
"""Two or more English words in a row (a name like tool_use or login.py is not a word)."""

NOT_OURS = [
    # the API's 400 texts (the fake answers with the API's wording) and its field names
    r"(messages\.\d+: )?`?tool_use`? ids were found without `?(tool_result`? blocks "
    r"immediately after: [^\n]*)?",
    r"Each `?tool_use`? block must have a corresponding `?tool_result`? block in the next "
    r"message\.?",
    r"unexpected `?tool_use_id`? found in `?tool_result`? blocks: [^\n]*",
    r"Each `?tool_result`? block must have a corresponding `?tool_use`? block in the "
    r"previous message\.?",
    r"Error code: \d+",
    r"Input should be[^\n\"]*",
    r"Field required",
    r"[^\n]*thinking[^\n]*",  # the API's texts about thinking blocks (lesson 02)
    r"Th(e|is) request was declined because it could enable cyber harm\.?",
    r"beta API",
    r"system prompt",
    r"assistant text",  # a role and a block type, the wire's words
    # the SDK's own texts (lesson 09 shows what its tool runner says)
    r"Invalid arguments for function \w+",
    r"Error occurred while calling tool[^\n]*",
    r"(Error: )?Tool '?\w+'? not found( in tool runner)?[^\n]*",
    r"Available tools[^\n]*",
    # MCP's (the official SDK's) text around a tool's error
    r"Error executing tool \w+",
    # the SDK's memory tool handler (lesson 17 shows its answers as the model reads them)
    r"Here're the files and directories up to \d+ levels deep in [^\n]*",
    r"File created successfully at: [^\n]*",
    r"Path [^\n]* would escape /memories directory",
    # Python's
    r"invalid literal for int\(\) with base \d+: [^\n]*",
    r"name '\w+' is not defined",
    r"No such file or directory",
    r"Read-only file system|Network is unreachable|File too large",  # errno texts (lesson 22)
    r"True True",
    r"Figure size \d+x\d+ with \d+ Axes",  # matplotlib's repr
    # pytest's output and the demo repository's (its tests, logs and source, in English)
    r"[^\n]*(DID NOT RAISE|FAILED tests|short test summary info)[^\n]*",
    r"\d+ (passed|failed|errors?)\b",
    r"[^\n]*(bob|alice) sign[^\n]*",
    r"[^\n]*\b(INFO|WARN|ERROR) [^\n]*",
    r"[^\n]*lockout[^\n]*",
    r"\"\"\"Password login with a lockout[^\n]*",
    r"[^\n]*with pytest[^\n]*",
    r"in test\w*",
    r"return self[^\n]*",
    # lesson 13 prints the source of looplab's MCP server, code as it is
    r"def \w+\([^\n]*",
    # lesson 22 prints the Python a model wrote, code as it is
    r"from \w+ import \w+|import \w+|raise SystemExit[^\n]*",
    r"\"\"\"The server, its tools registered[^\n]*",
]
ALLOWED = re.compile("|".join(f"(?:{p})" for p in NOT_OURS))


def shown(notebook: dict[str, Any]) -> list[tuple[int, str]]:
    """(cell, text) of every output a reader sees as text."""
    found = []
    for number, cell in enumerate(notebook["cells"]):
        for output in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            if output.get("output_type") == "error":
                text = f"{output.get('ename')}: {output.get('evalue')}"
            else:
                text = output.get("text") or output.get("data", {}).get("text/plain", "")
            found.append((number, "".join(text) if isinstance(text, list) else str(text)))
    return found


def english(text: str) -> list[str]:
    return PHRASE.findall(ALLOWED.sub(" ", text))


@pytest.mark.parametrize("lesson", CHINESE, ids=lambda p: p.name[:2])
def test_a_chinese_lesson_shows_no_english_of_its_own(lesson: Path) -> None:
    notebook = json.loads(lesson.read_text(encoding="utf-8"))
    found = [(cell, phrase) for cell, text in shown(notebook) for phrase in english(text)]
    assert found == [], f"{lesson.name}: English in these cells' outputs: {found}"


LOOPLABS = re.compile(r"(->|(?<!停止)：) ?(ran|blocked|not_run|interrupted|stopped: )\b|outcome：")
"""A call's outcome or a run's status as looplab's English value, in a Chinese sentence
(a bare `stopped: max_tokens` is the article's own loop's return value, lesson 04's)."""


@pytest.mark.parametrize("lesson", CHINESE, ids=lambda p: p.name[:2])
def test_a_chinese_lesson_shows_outcomes_and_stops_in_chinese(lesson: Path) -> None:
    notebook = json.loads(lesson.read_text(encoding="utf-8"))
    found = [(cell, line) for cell, text in shown(notebook) for line in text.splitlines()
             if LOOPLABS.search(line)]  # fmt: skip
    assert found == [], f"{lesson.name}: {found}"


@pytest.mark.parametrize("text", [
    "MaxTurnsExceeded: max turns (3) exceeded",
    "- Additional properties are not allowed ('modul' was unexpected)",
    "- module: 42 is not of type 'string'",
    "'module' is a required property",
])  # fmt: skip
def test_english_of_looplabs_own_is_found(text: str) -> None:
    assert english(text)


@pytest.mark.parametrize("text", [
    "超时：模型很慢，每条回复 120 s       -> stopped: timeout；3 条回复",
    "第 3 轮：run_tests {\"module\": \"login\"} -> blocked",
    "工具的 outcome：ran；它跑完后",
])  # fmt: skip
def test_an_english_outcome_or_stop_is_found(text: str) -> None:
    assert LOOPLABS.search(text)
