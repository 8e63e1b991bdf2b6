"""What the fake rejects with HTTP 400, exactly as the API words it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic
import pytest

from looplab import MODEL, ScriptedModel, call, fake_client, say, think
from looplab.fake import FakeModel
from looplab.history.rules import first_error

TOOL = {
    "name": "run_tests",
    "description": "Run the tests of one module.",
    "input_schema": {"type": "object", "properties": {"module": {"type": "string"}}},
}
HI = [{"role": "user", "content": "hi"}]


def client_for(model: FakeModel) -> anthropic.Anthropic:
    return fake_client(model, _strict_response_validation=True)


def rejected(model: FakeModel, **params: Any) -> anthropic.BadRequestError:
    body = {"model": MODEL, "max_tokens": 100, "messages": HI, "tools": [TOOL], **params}
    with pytest.raises(anthropic.BadRequestError) as caught:
        client_for(model).messages.create(**body)
    return caught.value


# -- required parameters and tools ---------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ({"model": MODEL, "messages": HI}, "max_tokens: Field required"),
        ({"max_tokens": 10, "messages": HI}, "model: Field required"),
        ({"model": MODEL, "max_tokens": 10}, "messages: Field required"),
        (
            {"model": MODEL, "max_tokens": "10", "messages": HI},
            "max_tokens: Input should be a valid integer",
        ),
        (
            {"model": MODEL, "max_tokens": 0, "messages": HI},
            "max_tokens: Input should be greater than or equal to 1",
        ),
    ],
)
def test_required_parameters(body: dict[str, Any], text: str) -> None:
    model = ScriptedModel([say("unused")])
    with pytest.raises(anthropic.BadRequestError) as caught:
        client_for(model).post("/v1/messages", body=body, cast_to=anthropic.types.Message)
    error = caught.value
    assert error.body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": text},
        "request_id": error.request_id,
    }
    assert error.request_id is not None and error.request_id.startswith("req_011C")
    assert model.position == 0 and len(model.requests) == 1


@pytest.mark.parametrize(
    ("tools", "text"),
    [
        (
            [{**TOOL, "name": "run tests"}],
            "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
        ),
        ([{"name": "t"}], "tools.0.custom.input_schema: Field required"),
        (
            [TOOL, {**TOOL, "name": "t2", "input_schema": {"type": "string"}}],
            "tools.1.custom.input_schema.type: Input should be 'object'",
        ),
        ([TOOL, TOOL], "tools: Tool names must be unique."),
        ([{"type": "web_search_20250305"}], "tools.0.name: Field required"),
    ],
)
def test_malformed_tools(tools: list[Any], text: str) -> None:
    assert rejected(ScriptedModel([say("x")]), tools=tools).api_message == text


# -- history mistakes, made the way a learner makes them ---------------------------------


def first_turn() -> tuple[ScriptedModel, anthropic.Anthropic, list[Any]]:
    """A model that answered one parallel call, and the history a correct loop builds."""
    model = ScriptedModel(
        [[say("Running both."), call("run_tests", module="a"), call("run_tests", module="b")]]
    )
    client = client_for(model)
    response = client.messages.create(model=MODEL, max_tokens=100, messages=HI, tools=[TOOL])
    return model, client, [*HI, {"role": "assistant", "content": response.content}]


def results(history: list[Any]) -> list[dict[str, Any]]:
    uses = [b for b in history[1]["content"] if b.type == "tool_use"]
    return [{"type": "tool_result", "tool_use_id": b.id, "content": "ok"} for b in uses]


A = "toolu_01Qh2NCRqOahh7YaoZkFX10o"
B = "toolu_01e5KVLqRKgde9DU1CDrfyc5"

MISTAKES: dict[str, tuple[Callable[[list[Any]], list[Any]], str]] = {
    "forgot the results": (
        lambda h: [*h, {"role": "user", "content": "go on"}],
        f"messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
        f"after: {A}, {B}. Each `tool_use` block must have a corresponding `tool_result` "
        "block in the next message.",
    ),
    "text before the results": (
        lambda h: [*h, {"role": "user", "content": [{"type": "text", "text": "x"}, *results(h)]}],
        f"messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
        f"after: {A}, {B}. Each `tool_use` block must have a corresponding `tool_result` "
        "block in the next message.",
    ),
    "only one of two parallel results": (
        lambda h: [*h, {"role": "user", "content": results(h)[:1]}],
        f"messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
        f"after: {B}. Each `tool_use` block must have a corresponding `tool_result` "
        "block in the next message.",
    ),
    "kept only the text of the reply": (
        lambda h: [
            h[0],
            {"role": "assistant", "content": h[1]["content"][:1]},
            {"role": "user", "content": results(h)},
        ],
        f"messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: {A}, "
        f"{B}. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
        "message.",
    ),
    "empty user message": (
        lambda h: [
            *h,
            {"role": "user", "content": [*results(h)]},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": []},
        ],
        "messages.4: all messages must have non-empty content except for the optional final "
        "assistant message",
    ),
    "empty text block": (
        lambda h: [{"role": "user", "content": [{"type": "text", "text": ""}]}],
        "messages: text content blocks must be non-empty",
    ),
    "starts with the assistant": (
        lambda h: [{"role": "assistant", "content": "hello"}, *HI],
        'messages: first message must use the "user" role',
    ),
}


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_history_mistakes_get_the_api_text(mistake: str) -> None:
    make, text = MISTAKES[mistake]
    model, client, history = first_turn()
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model=MODEL, max_tokens=100, messages=make(history), tools=[TOOL])
    assert caught.value.api_message == text
    violation = first_error(make(history), tools=[TOOL])
    assert violation is not None and violation.message == text
    assert caught.value.type == "invalid_request_error"
    assert len(model.requests) == 2  # rejected once, never retried


def test_the_correct_history_is_accepted() -> None:
    model, client, history = first_turn()
    model.steps.append(say("Both pass."))
    history.append({"role": "user", "content": results(history)})
    response = client.messages.create(model=MODEL, max_tokens=100, messages=history, tools=[TOOL])
    assert response.stop_reason == "end_turn"


# -- thinking blocks must come back unchanged ------------------------------------------------

THINKING_TEXT = (
    "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
    "modified. These blocks must remain as they were in the original response."
)


def thinking_turn() -> tuple[ScriptedModel, anthropic.Anthropic, Any]:
    model = ScriptedModel(
        [[think("Run the tests first."), say("Running."), call("run_tests")], say("Done.")]
    )
    client = client_for(model)
    response = client.messages.create(model=MODEL, max_tokens=100, messages=HI, tools=[TOOL])
    return model, client, response


def send_back(client: anthropic.Anthropic, content: list[Any], tool_use_id: str) -> Any:
    messages = [
        *HI,
        {"role": "assistant", "content": content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id}]},
    ]
    return client.messages.create(model=MODEL, max_tokens=100, messages=messages, tools=[TOOL])


def test_thinking_sent_back_whole_is_accepted() -> None:
    _, client, response = thinking_turn()
    assert send_back(client, response.content, response.content[2].id).stop_reason == "end_turn"


def _edited(content: list[Any]) -> list[Any]:
    thought = content[0].model_dump()
    return [{**thought, "thinking": "Something else."}, *content[1:]]


def _forged(content: list[Any]) -> list[Any]:
    thought = content[0].model_dump()
    return [{**thought, "signature": "Zm9yZ2Vk"}, *content[1:]]


@pytest.mark.parametrize(
    ("change", "position"),
    [
        (_edited, 0),
        (_forged, 0),
        (lambda content: [content[1], content[0], content[2]], 0),  # reordered
    ],
    ids=["edited", "forged signature", "reordered"],
)
def test_changed_thinking_is_rejected(
    change: Callable[[list[Any]], list[Any]], position: int
) -> None:
    model, client, response = thinking_turn()
    with pytest.raises(anthropic.BadRequestError) as caught:
        send_back(client, change(list(response.content)), response.content[2].id)
    assert caught.value.api_message == f"messages.1.content.{position}: {THINKING_TEXT}"
    assert model.position == 1


def test_dropped_thinking_gets_the_live_expected_thinking_text() -> None:
    _, client, response = thinking_turn()
    content = [block for block in response.content if block.type != "thinking"]
    with pytest.raises(anthropic.BadRequestError) as caught:
        send_back(client, content, response.content[2].id)
    assert caught.value.api_message.startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        f"`{content[0].type}`. When `thinking` is enabled, a final `assistant` message must "
        "start with a thinking block"
    )


# -- threads ---------------------------------------------------------------------------------


def test_thread_requests_are_unsupported() -> None:
    model = ScriptedModel([say("x")])
    error = rejected(model, extra_body={"thread": {"type": "create"}})
    assert error.error_code == "thread_unsupported_request"
    assert isinstance(error.body, dict)
    assert error.body["error"]["details"] == {
        "error_code": "thread_unsupported_request",
        "unsupported": ["thread"],
    }
    assert model.position == 0
