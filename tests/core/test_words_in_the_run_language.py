"""What the loop tells the model and the learner about a call is in the run's language: the
input's problems (jsonschema's, worded through the catalog) and each call's outcome."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

import looplab
from looplab import Limits, ScriptedModel, call, fake_client, run_agent, say
from looplab.lessons.demo import demo_tools
from looplab.schemas import validator

HAN = re.compile(r"[\u4e00-\u9fff]")
BAD_INPUTS = [{"modul": "login"}, {"module": 42}, {"module": "login", "a": 1, "b": 2},
              {"module": ["login"]}]  # fmt: skip


@pytest.fixture(autouse=True)
def _back_to_default() -> Iterator[None]:
    yield
    looplab.set_language(None)


def refused(language: str, given: dict[str, Any]) -> str:
    looplab.set_language(language)
    run_tests = demo_tools()[0]
    model = ScriptedModel([call("run_tests", **given), say("ok")])
    result = run_agent(fake_client(model), "run the tests", tools=[run_tests])
    block = result.messages[2]["content"][0]
    assert block["is_error"] is True
    return str(block["content"])


@pytest.mark.parametrize("given", BAD_INPUTS)
def test_in_english_the_input_problems_are_jsonschemas_own_words(given: dict[str, Any]) -> None:
    run_tests = demo_tools()[0]
    text = refused("en", given)
    for e in validator(run_tests.input_schema).iter_errors(given):
        assert e.message in text


@pytest.mark.parametrize("given", BAD_INPUTS)
def test_in_chinese_no_english_sentence_of_jsonschema_reaches_the_model(
    given: dict[str, Any],
) -> None:
    text = refused("zh-CN", given)
    problems = [line for line in text.splitlines() if line.startswith("- ")]
    assert problems and all(HAN.search(line) for line in problems), text
    for english in ("is not of type", "is a required property", "are not allowed"):
        assert english not in text


def test_each_outcome_has_a_label_in_the_run_language() -> None:
    model = ScriptedModel([call("run_tests", module="login")] * 4 + [say("ok")])
    result = run_agent(fake_client(model), "t", tools=[demo_tools()[0]], limits=Limits())
    calls = [c for t in result.turns for c in t.tool_calls]
    assert [c.outcome for c in calls] == ["ran", "ran", "blocked", "not_run"]
    assert [c.label for c in calls] == ["ran", "ran", "blocked", "not run"]
    looplab.set_language("zh-CN")
    assert [c.label for c in calls] == ["已执行", "已执行", "被挡下", "未执行"]
    assert [c.outcome for c in calls] == ["ran", "ran", "blocked", "not_run"]  # the values
