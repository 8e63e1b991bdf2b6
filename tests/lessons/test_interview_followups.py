"""Lesson 10's later follow-ups (ReAct, tool_choice, retries) say what their STORED outputs
show, in both editions.

nbval only checks that a re-run prints what is stored; these tests read what is stored and
hold it to the lesson's prose: the prompt-parsed ReAct run took 4 requests and the native
one 3; `any` and `tool` replies start with the call and `none` has none; one `create()`
is three HTTP requests; the measured backoff is the SDK's; a failing tool is bounded by
the repeated-call gate.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from editions import NOTEBOOKS, chinese
from test_article_numbers import numbers, printed

EDITIONS = [NOTEBOOKS / "10_interview_drill.ipynb", chinese("10")]
ids = ["en", "zh-CN"]


@pytest.mark.parametrize("lesson", EDITIONS, ids=ids)
def test_prompt_parsed_react_needs_four_requests_and_the_native_loop_three(lesson: Path) -> None:
    react = printed(lesson, "react-code").splitlines()
    stops = next(line for line in react if line.startswith("stop_reason"))
    # the invented observation was cut by the stop sequence, the rest ended normally
    assert re.findall(r"'(\w+)'", stops) == ["stop_sequence", "end_turn", "end_turn", "end_turn"]
    assert numbers(react[-1])[0] == 4, react[-1]
    observations = [line for line in react if line.startswith("user")]
    assert "Action" in observations[1] and "FAILED" in observations[0], observations
    native = printed(lesson, "react-native-code").splitlines()[-1]
    assert numbers(native) == [3, 1, 2, 0], native  # 3 requests; calls per turn 1, 2, 0


@pytest.mark.parametrize("lesson", EDITIONS, ids=ids)
def test_tool_choice_any_and_tool_force_the_call_first_and_none_forbids_it(lesson: Path) -> None:
    rows = printed(lesson, "choice-code").splitlines()
    assert len(rows) == 5, rows
    auto_unset, auto, any_, forced, none = (row.split()[:4] for row in rows)
    assert auto_unset[:3] == auto[:3] == ["tool_use", "text,", "tool_use"], rows
    assert any_[:3] == ["tool_use", "tool_use", "run_tests"], rows[2]
    assert forced[:3] == ["tool_use", "tool_use", "read_file"], rows[3]
    assert none[:2] == ["end_turn", "text"] and "tool_use" not in rows[4].split("{")[0]
    assert "ScriptError" in printed(lesson, "choice-guard-code")


@pytest.mark.parametrize("lesson", EDITIONS, ids=ids)
def test_the_sdk_retries_429_and_529_and_a_stopped_run_resumes(lesson: Path) -> None:
    assert numbers(printed(lesson, "retry-sdk"))[0] == 3
    backoff = printed(lesson, "retry-backoff-code").splitlines()
    assert len(backoff) == 2 and all(line.endswith("True") for line in backoff), backoff
    assert "0.375" in backoff[0] and "0.75" in backoff[1], backoff
    stopped, resumed = printed(lesson, "retry-stop-code").splitlines()
    assert stopped.startswith("api_error | OverloadedError") and numbers(stopped) == [3]
    assert resumed.startswith("done") and numbers(resumed) == [4, 1], resumed
    assert numbers(printed(lesson, "retry-after-code")) == [429, 20]


@pytest.mark.parametrize("lesson", EDITIONS, ids=ids)
def test_a_failing_tool_is_retried_by_the_model_and_bounded_by_the_repeat_gate(
    lesson: Path,
) -> None:
    lines = printed(lesson, "retry-tool-code").splitlines()
    runs = [line for line in lines if not line.startswith(" ")]
    assert "done" in runs[0] and numbers(runs[0])[-2:] == [2, 3], runs[0]  # ran 2x, 3 requests
    assert "repeated_call" in runs[1] and numbers(runs[1])[-2:] == [2, 4], runs[1]
    flags = [re.search(r"is_error=(\w+)", line)[1] for line in lines[len(lines) - 4:]]
    assert flags == ["True"] * 4, lines


def prose(lesson: Path) -> str:
    return "\n".join(c.source for c in nbformat.read(lesson, 4).cells
                     if c.cell_type == "markdown")  # fmt: skip


@pytest.mark.parametrize("lesson", EDITIONS, ids=ids)
def test_forcing_a_tool_with_extended_thinking_is_a_400_and_the_lesson_says_so(
    lesson: Path,
) -> None:
    guard = printed(lesson, "choice-guard-code").splitlines()
    assert "400 Thinking may not be enabled when tool_choice forces tool use." in guard[-1]
    allowed = r"only `auto` and `none`.{0,80}400|只允许 `auto` 和 `none`.{0,80}400"
    assert re.search(allowed, prose(lesson), re.S), "which tool_choice thinking allows"


@pytest.mark.parametrize("lesson", EDITIONS, ids=ids)
def test_the_sdk_retries_408_and_409_too_and_the_lesson_says_which(lesson: Path) -> None:
    retried = printed(lesson, "retry-sdk").splitlines()
    assert numbers(retried[1]) == [408, 409, 3] and retried[1].endswith("end_turn"), retried
    text = prose(lesson)
    assert "408" in text and "409" in text and ("connection" in text or "连接失败" in text)


@pytest.mark.parametrize("lesson", EDITIONS, ids=ids)
def test_the_lesson_never_says_the_api_checks_input_without_strict(lesson: Path) -> None:
    """Without `strict: true` the API does not check a call's input against input_schema:
    the harness does. Every sentence that has input_schema checked says by whom."""
    sentences = re.split(r"(?<=[.。；;|])\s*", prose(lesson))
    checked = [s for s in sentences if "input_schema" in s and re.search(r"check|校验", s)]
    assert checked, "the lesson no longer says who checks a call's input"
    for sentence in checked:
        assert "strict" in sentence or "harness" in sentence or "run_agent" in sentence, sentence
