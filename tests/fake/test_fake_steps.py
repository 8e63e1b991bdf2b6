"""Every kind of scripted step, as the real SDK sees it (strict response validation)."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from looplab import (
    MODEL,
    ScriptedModel,
    api_error,
    call,
    fake_client,
    pause,
    rate_limited,
    refuse,
    reply,
    say,
    think,
    truncate,
)
from looplab.fake import FakeModel, ScriptError, stop

TOOLS = [
    {
        "name": "write_file",
        "description": "Write a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search"}
HI = [{"role": "user", "content": "hi"}]


def create(model: FakeModel, *, strict: bool = True, **params: Any) -> Any:
    client = fake_client(model, _strict_response_validation=strict)
    return client.messages.create(
        **{"model": MODEL, "max_tokens": 200, "messages": HI, "tools": TOOLS, **params}
    )


def test_one_block_a_list_or_a_string_is_a_reply() -> None:
    model = ScriptedModel([say("a"), [say("b"), say("c")], "d"])
    texts = [[b.text for b in create(model).content] for _ in range(3)]
    assert texts == [["a"], ["b", "c"], ["d"]]


def test_stop_reason_inferred_from_calls() -> None:
    model = ScriptedModel([say("x"), call("write_file", path="a.txt")])
    assert create(model).stop_reason == "end_turn"
    assert create(model).stop_reason == "tool_use"


def test_parallel_calls_get_distinct_ids_and_dict_input() -> None:
    step = [call("write_file", path="a"), call("write_file", {"path": "b"}), call("write_file")]
    response = create(ScriptedModel([step]))
    ids = [block.id for block in response.content]
    assert len(set(ids)) == 3
    assert all(i.startswith("toolu_01") and len(i) == 30 for i in ids)
    assert [block.input for block in response.content] == [{"path": "a"}, {"path": "b"}, {}]


def test_call_keeps_a_given_id_and_fields_named_like_parameters() -> None:
    block = call("write_file", {"name": "n", "input": 1}, id="toolu_custom", path="p")
    assert block == {
        "type": "tool_use",
        "name": "write_file",
        "input": {"name": "n", "input": 1, "path": "p"},
        "id": "toolu_custom",
    }
    assert create(ScriptedModel([block])).content[0].id == "toolu_custom"


def test_calling_a_tool_the_request_lacks_is_a_script_error() -> None:
    model = ScriptedModel([call("delete_everything")])
    with pytest.raises(ScriptError) as caught:
        create(model)
    assert str(caught.value) == (
        "the script makes the model call the tool 'delete_everything', but request 1 offers "
        "no such tool (tools: write_file). Fix the tool name in the script, or pass that "
        "tool in `tools=`."
    )
    assert len(model.requests) == 1  # not retried


def test_rate_limited_carries_retry_after_and_is_retried() -> None:
    model = ScriptedModel([rate_limited(retry_after=7), rate_limited(), say("ok")])
    assert create(model).content[0].text == "ok"
    assert len(model.requests) == 3
    model = ScriptedModel([rate_limited(retry_after=7)])
    client = fake_client(model, max_retries=0)
    with pytest.raises(anthropic.RateLimitError) as caught:
        client.messages.create(model=MODEL, max_tokens=10, messages=HI)
    assert caught.value.response.headers["retry-after"] == "7"
    assert caught.value.response.headers["retry-after-ms"] == "1"
    assert caught.value.type == "rate_limit_error"


def test_api_error_envelope_and_request_id() -> None:
    model = ScriptedModel([api_error(401, "authentication_error", "invalid x-api-key")])
    with pytest.raises(anthropic.AuthenticationError) as caught:
        create(model)
    error = caught.value
    assert error.body == {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key"},
        "request_id": error.request_id,
    }
    assert error.request_id is not None and error.request_id.startswith("req_011C")
    assert len(error.request_id) == 28


def test_server_errors_use_up_one_step_per_attempt() -> None:
    model = ScriptedModel([api_error(), api_error(), api_error()])
    with pytest.raises(anthropic.InternalServerError):
        create(model)
    assert len(model.requests) == 3
    model.assert_complete()


def test_api_error_rejects_a_success_status() -> None:
    with pytest.raises(ValueError, match="needs an HTTP error status"):
        api_error(200)


def test_refuse_sends_stop_details() -> None:
    response = create(ScriptedModel([refuse("bio", text="I can't help")]))
    assert response.stop_reason == "refusal"
    assert response.content[0].text == "I can't help"
    assert response.stop_details is not None
    assert response.stop_details.model_dump() == {
        "type": "refusal",
        "category": "bio",
        "explanation": "This request was declined because it could enable biological harm.",
    }
    assert create(ScriptedModel([refuse()])).content == []


def test_truncate_reports_max_tokens_and_may_cut_a_call() -> None:
    response = create(ScriptedModel([truncate(say("Writing"), call("write_file"))]))
    assert response.stop_reason == "max_tokens"
    assert response.content[-1].type == "tool_use"
    assert response.usage.output_tokens == 200


def test_pause_sends_a_server_tool_use_and_can_be_resumed() -> None:
    model = ScriptedModel([pause(say("Searching."), input={"query": "agents"}), say("Found.")])
    client = fake_client(model, _strict_response_validation=True)
    messages: list[Any] = list(HI)
    first = client.messages.create(
        model=MODEL, max_tokens=100, messages=messages, tools=[WEB_SEARCH]
    )
    assert first.stop_reason == "pause_turn"
    block = first.content[1]
    assert block.type == "server_tool_use"
    assert block.id.startswith("srvtoolu_01") and len(block.id) == 33
    messages.append({"role": "assistant", "content": first.content})
    second = client.messages.create(
        model=MODEL, max_tokens=100, messages=messages, tools=[WEB_SEARCH]
    )
    assert second.stop_reason == "end_turn"


def test_pause_without_the_server_tool_is_a_script_error() -> None:
    with pytest.raises(ScriptError, match="'web_search'"):
        create(ScriptedModel([pause()]))


@pytest.mark.parametrize("reason", ["stop_sequence", "model_context_window_exceeded"])
def test_stop_with_any_known_reason(reason: str) -> None:
    response = create(ScriptedModel([stop(reason, say("x"))]), stop_sequences=["END"])
    assert response.stop_reason == reason
    assert response.stop_sequence == ("END" if reason == "stop_sequence" else None)


def test_unknown_stop_reason_passes_through_lax_validation() -> None:
    response = create(ScriptedModel([reply(say("x"), stop_reason="brand_new")]), strict=False)
    assert response.stop_reason == "brand_new"


def test_usage_override_keeps_the_rest_computed() -> None:
    response = create(ScriptedModel([reply(say("x"), usage={"output_tokens": 99})]))
    assert response.usage.output_tokens == 99
    assert response.usage.input_tokens > 0
    assert response.usage.cache_read_input_tokens == 0


def test_thinking_blocks_are_signed() -> None:
    response = create(ScriptedModel([[think("Plan first."), say("Done.")]]))
    block = response.content[0]
    assert block.type == "thinking" and block.thinking == "Plan first."
    assert len(block.signature) == 128


@pytest.mark.parametrize("bad", [42, [42], [{"text": "no type"}]])
def test_malformed_steps_are_rejected_with_advice(bad: Any) -> None:
    with pytest.raises(TypeError, match="say\\(\\)"):
        ScriptedModel([bad])


def test_assert_complete_names_unplayed_steps() -> None:
    model = ScriptedModel([say("a"), say("b")])
    create(model)
    with pytest.raises(AssertionError) as caught:
        model.assert_complete()
    assert str(caught.value) == (
        "the script has 1 unplayed step(s) of 2: the loop stopped after 1 step(s)."
    )
