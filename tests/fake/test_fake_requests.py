"""Parameters the live API refuses, refused by the fake too: each rule at its bound."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest

from looplab import MODEL, ScriptedModel, call, fake_client, say
from looplab.fake.errors import FAKE_WORDING

TOOL = {
    "name": "run_tests",
    "description": "Run the tests of one module.",
    "input_schema": {"type": "object", "properties": {"module": {"type": "string"}}},
}
HI = [{"role": "user", "content": "hi"}]
ASK: dict[str, Any] = {"model": MODEL, "max_tokens": 100, "messages": HI, "tools": [TOOL]}


def send(step: Any = None, **params: Any) -> Any:
    client = fake_client(ScriptedModel([step or say("ok")]), max_retries=0)
    return client.messages.create(**{**ASK, **params})


def refused(**params: Any) -> str:
    """The 400's message for a request with `params`."""
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(**params)
    return caught.value.api_message  # type: ignore[no-any-return]


# -- tool_choice and metadata ------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "text"),
    [
        ("auto", "tool_choice: Input should be a valid dictionary or object to extract fields"),
        ({"type": "required"}, "tool_choice: Input tag 'required' found using 'type' does not"),
        ({}, "tool_choice: Input tag None found using 'type'"),
        ({"type": "auto", "name": "x"}, "tool_choice.auto.name: Extra inputs are not permitted"),
        ({"type": "tool"}, "tool_choice.tool.name: Field required"),
        (
            {"type": "any", "disable_parallel_tool_use": "yes"},
            "tool_choice.any.disable_parallel_tool_use: Input should be a valid boolean",
        ),
    ],
)
def test_a_malformed_tool_choice_is_refused(choice: Any, text: str) -> None:
    message = refused(tool_choice=choice)
    assert message.startswith(text) and message.endswith(FAKE_WORDING)


def test_a_forced_tool_not_in_tools_is_refused() -> None:
    message = refused(tool_choice={"type": "tool", "name": "read_file"})
    assert message.startswith("tool_choice.name: the forced tool 'read_file' is not in `tools`")
    assert "(tools: run_tests)" in message


def test_a_forced_tool_in_tools_is_accepted() -> None:
    step = call("run_tests", module="login")
    assert send(step, tool_choice={"type": "tool", "name": "run_tests"}).stop_reason == "tool_use"


def test_any_without_tools_is_refused() -> None:
    message = refused(tools=[], tool_choice={"type": "any"})
    assert "forces a tool call, but the request has no `tools`" in message


@pytest.mark.parametrize(
    ("metadata", "text"),
    [
        ("user-1", "metadata: Input should be a valid dictionary or object to extract fields"),
        ({"user": "u1"}, "metadata.user: Extra inputs are not permitted"),
        ({"user_id": 7}, "metadata.user_id: Input should be a valid string"),
    ],
)
def test_malformed_metadata_is_refused(metadata: Any, text: str) -> None:
    assert refused(metadata=metadata).startswith(text)


def test_metadata_with_a_user_id_is_accepted() -> None:
    assert send(metadata={"user_id": "u1"}).stop_reason == "end_turn"


@pytest.mark.parametrize(
    ("sequences", "text"),
    [("END", "stop_sequences: Input should be a valid list"), ([1], "stop_sequences.0:")],
)
def test_malformed_stop_sequences_are_refused(sequences: Any, text: str) -> None:
    assert refused(stop_sequences=sequences).startswith(text)


# -- thinking ----------------------------------------------------------------------------

BUDGET_TEXT = "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
MAX_TOKENS_TEXT = (
    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
    "documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
    "#max-tokens-and-context-window-size"
)


def thinking(budget: int) -> dict[str, Any]:
    return {"type": "enabled", "budget_tokens": budget}


def test_a_thinking_budget_under_1024_is_refused() -> None:
    assert refused(max_tokens=4000, thinking=thinking(1023)) == BUDGET_TEXT


def test_a_thinking_budget_of_1024_is_accepted() -> None:
    assert send(max_tokens=1025, thinking=thinking(1024)).stop_reason == "end_turn"


def test_a_thinking_budget_equal_to_max_tokens_is_refused() -> None:
    assert refused(max_tokens=2000, thinking=thinking(2000)) == MAX_TOKENS_TEXT


def test_forced_tool_use_with_thinking_is_refused() -> None:
    for choice in ({"type": "any"}, {"type": "tool", "name": "run_tests"}):
        message = refused(max_tokens=4000, thinking=thinking(2000), tool_choice=choice)
        assert message == "Thinking may not be enabled when tool_choice forces tool use."


def test_auto_tool_choice_with_thinking_is_accepted() -> None:
    response = send(max_tokens=4000, thinking=thinking(2000), tool_choice={"type": "auto"})
    assert response.stop_reason == "end_turn"


# -- content blocks ----------------------------------------------------------------------


def cached_history(marks: int) -> list[dict[str, Any]]:
    """A user message of five text blocks, the first `marks` with cache_control."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": f"part {i}"} for i in range(5)]
    for block in blocks[:marks]:
        block["cache_control"] = {"type": "ephemeral"}
    return [{"role": "user", "content": blocks}]


def test_four_cache_control_blocks_are_accepted() -> None:
    assert send(messages=cached_history(4)).stop_reason == "end_turn"


def test_a_fifth_cache_control_block_is_refused() -> None:
    assert refused(messages=cached_history(5)) == (
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    )


def test_cache_control_on_tools_and_system_counts_too() -> None:
    tool = {**TOOL, "cache_control": {"type": "ephemeral"}}
    system = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    message = refused(tools=[tool], system=system, messages=cached_history(3))
    assert message.endswith("Found 5.")


def image(media_type: str) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": "AA=="}}


MEDIA_TEXT = "Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"


@pytest.mark.parametrize("media_type", ["image/jpeg", "image/png", "image/gif", "image/webp"])
def test_supported_image_types_are_accepted(media_type: str) -> None:
    messages = [{"role": "user", "content": [image(media_type), {"type": "text", "text": "?"}]}]
    assert send(messages=messages).stop_reason == "end_turn"


def test_an_unsupported_image_type_is_refused() -> None:
    messages = [{"role": "user", "content": [image("image/bmp")]}]
    assert refused(messages=messages) == (
        f"messages.0.content.0.image.source.base64.media_type: {MEDIA_TEXT}"
    )


def test_an_unsupported_image_in_a_tool_result_is_refused() -> None:
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [image("image/svg+xml")]}
    messages = [
        *HI,
        {"role": "assistant", "content": [{**call("run_tests", module="a"), "id": "toolu_1"}]},
        {"role": "user", "content": [result]},
    ]
    assert refused(messages=messages) == (
        f"messages.2.content.0.tool_result.content.0.image.source.base64.media_type: {MEDIA_TEXT}"
    )


def in_a_tool_result(*content: Any) -> list[dict[str, Any]]:
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": list(content)}
    return [
        *HI,
        {"role": "assistant", "content": [{**call("run_tests", module="a"), "id": "toolu_1"}]},
        {"role": "user", "content": [result]},
    ]


@pytest.mark.parametrize("block", [
    {"type": "text", "text": ""},
    {"type": "text", "text": " \n"},
    {"type": "text"},
    {"type": "text", "text": 7},
    {"type": "banana"},
    {"text": "no type"},
    "just a string",
], ids=["empty", "blank", "no-text", "text-not-str", "unknown-type", "no-type", "not-a-dict"])
def test_a_bad_block_in_a_tool_result_is_refused_as_in_a_message(block: Any) -> None:
    in_a_message = refused(messages=[{"role": "user", "content": [{"type": "text", "text": "?"},
                                                                  block]}])
    assert refused(messages=in_a_tool_result(image("image/png"), block)) == in_a_message.replace(
        "messages.0.content.1", "messages.2.content.0.tool_result.content.1")


def test_the_blocks_a_tool_result_may_hold_are_accepted() -> None:
    search = {"type": "search_result", "source": "https://example.com", "title": "Example",
              "content": [{"type": "text", "text": "An example."}]}
    document = {"type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "A page."}}
    messages = in_a_tool_result({"type": "text", "text": "ok"}, image("image/png"), search,
                                document)
    assert send(messages=messages).stop_reason == "end_turn"


# -- model and body ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["gpt-4o", "claude", "Claude-Opus-4-1", "claude-opus 4"])
def test_a_model_that_is_not_a_claude_id_is_not_found(name: str) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        send(model=name)
    assert caught.value.api_message == f"model: {name}"
    assert caught.value.type == "not_found_error"  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["claude-opus-4-1", "claude-3-5-haiku-20241022", "claude-x"])
def test_claude_shaped_model_ids_are_served(name: str) -> None:
    assert send(model=name).model == name


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_in_a_tool_input_is_not_valid_json(constant: str) -> None:
    body = json.dumps(
        {
            **ASK,
            "messages": [
                *HI,
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_1",
                            "name": "run_tests",
                            "input": {"n": 0},
                        }
                    ],
                },
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]},
            ],
        }
    ).replace('"n": 0', f'"n": {constant}')
    client = fake_client(ScriptedModel([say("ok")]))
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.post(
            "/v1/messages",
            cast_to=anthropic.types.Message,
            content=body.encode(),
            options={"headers": {"content-type": "application/json"}},
        )
    assert caught.value.api_message.startswith(
        f"The request body is not valid JSON: {constant} is not a JSON number"
    )


def test_the_sdk_itself_will_not_send_nan() -> None:
    messages = [
        *HI,
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "run_tests",
                    "input": {"n": float("nan")},
                }
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]},
    ]
    model = ScriptedModel([say("ok")])
    with pytest.raises(ValueError, match="not JSON compliant"):
        fake_client(model).messages.create(**{**ASK, "messages": messages})
    assert model.requests == []


def test_a_body_that_is_not_json_gets_the_parser_message() -> None:
    client = fake_client(ScriptedModel([say("ok")]))
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.post("/v1/messages", cast_to=anthropic.types.Message, content=b"{oops")
    assert caught.value.api_message == (
        "The request body is not valid JSON: Expecting property name enclosed in double "
        "quotes: line 1 column 2 (char 1)"
    )
