"""Lesson 16's structured output, tried the way it breaks, through the real SDK: a forced
call whose input does not fit (repaired, told why as is_error), one that never fits (the cap
holds, then a clear failure), a reply cut or refused, and the schema mode's JSON validated."""

from __future__ import annotations

import json
from typing import Any

import pytest

from looplab import MODEL, FunctionModel, ScriptedModel, call, fake_client, reply, say
from looplab.lessons.structured import (
    VERDICT,
    VERDICT_TOOL,
    NoValidOutput,
    forced_tool,
    schema_output,
)

ASK = [{"role": "user", "content": "Reference: 3 failed\nAnswer: 3 tests failed\nPASS or FAIL?"}]
GOOD = {"verdict": "PASS", "reason": "Both say 3 tests failed."}
CREATE: dict[str, Any] = {"model": MODEL, "max_tokens": 256}


def test_an_input_that_does_not_fit_is_sent_back_as_is_error_and_repaired() -> None:
    model = ScriptedModel([call("record_verdict", verdict="pass"),
                           call("record_verdict", **GOOD)])
    got = forced_tool(fake_client(model), ASK, VERDICT_TOOL, repairs=2, **CREATE)
    assert got.value == GOOD and got.requests == 2 == len(model.requests)
    assert all(body["tool_choice"] == {"type": "tool", "name": "record_verdict"}
               for body in model.requests)
    [result] = model.requests[1]["messages"][-1]["content"]
    assert result["type"] == "tool_result" and result["is_error"] is True
    assert "does not fit the schema" in str(result["content"])


@pytest.mark.parametrize("repairs", [0, 1, 3])
def test_the_repairs_are_capped_then_it_fails_clearly(repairs: int) -> None:
    model = FunctionModel(lambda request: reply(call("record_verdict", verdict="maybe",
                                                     reason="?")))
    with pytest.raises(NoValidOutput, match=f"after {repairs} repairs") as failed:
        forced_tool(fake_client(model), ASK, VERDICT_TOOL, repairs=repairs, **CREATE)
    assert len(model.requests) == repairs + 1 and "'maybe'" in str(failed.value)


@pytest.mark.parametrize("bad", [{"verdict": "PASS"}, {**GOOD, "score": 10},
                                 {"verdict": "PASS", "reason": ""}, {"verdict": ["PASS"],
                                                                     "reason": "x"}])
def test_hostile_or_sloppy_inputs_never_come_back_as_a_value(bad: dict[str, Any]) -> None:
    model = FunctionModel(lambda request: reply(call("record_verdict", bad)))
    with pytest.raises(NoValidOutput):
        forced_tool(fake_client(model), ASK, VERDICT_TOOL, repairs=1, **CREATE)


def test_a_refused_forced_call_fails_without_a_repair() -> None:
    model = ScriptedModel([reply(stop_reason="refusal")])
    with pytest.raises(NoValidOutput, match="refusal"):
        forced_tool(fake_client(model), ASK, VERDICT_TOOL, **CREATE)
    assert len(model.requests) == 1


def test_the_schema_mode_asks_the_api_and_validates_what_comes_back() -> None:
    model = ScriptedModel([say(json.dumps(GOOD))])
    got = schema_output(fake_client(model), ASK, VERDICT, **CREATE)
    assert got.value == GOOD and got.requests == 1
    assert model.requests[0]["output_config"]["format"] == {"type": "json_schema",
                                                            "schema": VERDICT}


def test_a_schema_mode_reply_cut_by_max_tokens_is_not_parsed_as_if_whole() -> None:
    model = ScriptedModel([reply(say('{"verdict": "PA'), stop_reason="max_tokens")])
    with pytest.raises(NoValidOutput, match="max_tokens"):
        schema_output(fake_client(model), ASK, VERDICT, **CREATE)


def test_repairs_must_be_a_whole_number() -> None:
    with pytest.raises(ValueError, match="repairs"):
        forced_tool(fake_client(ScriptedModel([])), ASK, VERDICT_TOOL, repairs=-1, **CREATE)
