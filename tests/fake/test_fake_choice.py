"""A script step that ignores `tool_choice` or a structured-output schema fails with a
script error: the live API never sends such a reply."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest

from looplab import MODEL, ScriptedModel, call, fake_client, refuse, say
from looplab.fake import FunctionModel, ScriptError
from looplab.fake.steps import StepLike

TOOLS = [
    {"name": name, "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}}
    for name in ("run_tests", "read_file")
]
HI = [{"role": "user", "content": "hi"}]
ANY = {"type": "any"}
FORCED = {"type": "tool", "name": "run_tests"}


def create(steps: list[StepLike], **params: Any) -> Any:
    client = fake_client(ScriptedModel(steps), _strict_response_validation=True)
    body = {"model": MODEL, "max_tokens": 100, "messages": HI, "tools": TOOLS, **params}
    for _ in steps[:-1]:
        client.messages.create(**body)
    return client.messages.create(**body)


def test_any_with_a_text_reply_is_a_script_error() -> None:
    with pytest.raises(ScriptError) as caught:
        create([say("Hello.")], tool_choice=ANY)
    assert str(caught.value) == (
        'request 1 sets tool_choice={"type": "any"}, so the live model always answers with a '
        "tool call, but script step 1 (the reply to request 1) makes none. Script a "
        "call(...) for this step, or drop tool_choice."
    )


def test_any_with_a_call_is_accepted() -> None:
    assert create([call("read_file", x="a")], tool_choice=ANY).stop_reason == "tool_use"


def test_forced_choice_with_text_before_the_call_is_a_script_error() -> None:
    with pytest.raises(ScriptError, match="starts with the tool call .* starts with a text"):
        create([[say("Let me run them."), call("run_tests")]], tool_choice=FORCED)


def test_a_forced_tool_answered_with_another_tool_is_a_script_error() -> None:
    with pytest.raises(ScriptError, match="calls only 'run_tests', but script step 2 .* "):
        create([call("run_tests"), call("read_file")], tool_choice=FORCED)


def test_a_forced_tool_answered_with_that_tool_is_accepted() -> None:
    assert create([call("run_tests", x="login")], tool_choice=FORCED).content[0].name == (
        "run_tests"
    )


def test_none_with_a_call_is_a_script_error() -> None:
    with pytest.raises(ScriptError, match="never calls a tool, but .* calls 'read_file'"):
        create([call("read_file")], tool_choice={"type": "none"})


def test_none_with_text_is_accepted() -> None:
    assert create([say("No tools.")], tool_choice={"type": "none"}).stop_reason == "end_turn"


@pytest.mark.parametrize("kind", ["auto", "any"])
def test_disable_parallel_tool_use_allows_one_call_not_two(kind: str) -> None:
    choice = {"type": kind, "disable_parallel_tool_use": True}
    assert create([call("run_tests")], tool_choice=choice).stop_reason == "tool_use"
    with pytest.raises(ScriptError, match="at most one call, but script step 1 .* makes 2"):
        create([[call("run_tests"), call("read_file")]], tool_choice=choice)


def test_a_refusal_needs_no_call_under_any() -> None:
    assert create([refuse()], tool_choice=ANY).stop_reason == "refusal"


def test_a_function_model_is_named_by_request() -> None:
    client = fake_client(FunctionModel(lambda request: say("prose")))
    with pytest.raises(ScriptError, match="but the reply to request 1 makes none"):
        client.messages.create(
            model=MODEL, max_tokens=100, messages=HI, tools=TOOLS, tool_choice=ANY
        )


# -- structured output -------------------------------------------------------------------


class Verdict(pydantic.BaseModel):
    module: str
    failing: int


def parse(step: StepLike) -> Any:
    client = fake_client(ScriptedModel([step]))
    return client.messages.parse(model=MODEL, max_tokens=100, messages=HI, output_format=Verdict)


def test_prose_for_a_structured_output_request_names_the_step_and_the_schema() -> None:
    with pytest.raises(ScriptError) as caught:
        parse(say("The login module has one failing test."))
    text = str(caught.value)
    assert text.startswith(
        "request 1 asks for structured output (JSON matching a schema), but script step 1 "
        "(the reply to request 1) answers prose ('The login module has one failing test.'), "
        "not JSON. The schema wants: {"
    )
    assert '"required":["module","failing"]' in text


def test_json_that_does_not_fit_the_schema_is_a_script_error() -> None:
    with pytest.raises(ScriptError, match="does not fit it: 'failing' is a required property"):
        parse(say(json.dumps({"module": "login"})))


def test_json_that_fits_the_schema_is_parsed() -> None:
    response = parse(say(json.dumps({"module": "login", "failing": 1})))
    assert response.parsed_output == Verdict(module="login", failing=1)


def test_output_config_with_a_schema_dict_is_checked_too() -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    client = fake_client(ScriptedModel([say("yes")]))
    with pytest.raises(ScriptError, match="answers prose \\('yes'\\)"):
        client.messages.create(
            model=MODEL,
            max_tokens=100,
            messages=HI,
            output_config={"format": {"type": "json_schema", "schema": schema}},
        )
