"""`usage` has the live API's shape, and a script's own usage numbers are checked."""

from __future__ import annotations

import pytest

import looplab
from looplab.fake import ScriptedModel, ScriptError, reply, say

ASK = {
    "model": "claude-test-model",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "hello"}],
}


def test_usage_has_service_tier_cache_split_and_server_tool_use() -> None:
    usage = looplab.fake_client(ScriptedModel([say("hi")])).messages.create(**ASK).usage
    assert usage.service_tier == "standard"
    assert usage.cache_creation is not None
    assert usage.cache_creation.ephemeral_1h_input_tokens == 0
    assert usage.cache_creation.ephemeral_5m_input_tokens == usage.cache_creation_input_tokens
    assert usage.server_tool_use is not None
    assert usage.server_tool_use.web_search_requests == 0


@pytest.mark.parametrize("bad", ["5", -1, 2.5, True])
def test_a_scripted_usage_that_is_not_a_count_is_a_script_error(bad: object) -> None:
    client = looplab.fake_client(
        ScriptedModel([reply(say("hi"), usage={"output_tokens": bad})])  # type: ignore[dict-item]
    )
    with pytest.raises(ScriptError, match=r"output_tokens=.*whole numbers ≥ 0"):
        client.messages.create(**ASK)  # type: ignore[call-overload]


def test_a_scripted_usage_of_zero_is_accepted() -> None:
    client = looplab.fake_client(ScriptedModel([reply(say("hi"), usage={"output_tokens": 0})]))
    assert client.messages.create(**ASK).usage.output_tokens == 0  # type: ignore[call-overload]


def test_scripted_cache_fields_may_be_none_as_live() -> None:
    usage = {"cache_creation_input_tokens": None, "cache_read_input_tokens": None}
    client = looplab.fake_client(ScriptedModel([reply(say("hi"), usage=usage)]))
    response = client.messages.create(**ASK)  # type: ignore[call-overload]
    assert response.usage.cache_read_input_tokens is None


@pytest.mark.parametrize("key", ["input_tokens", "output_tokens"])
def test_scripted_input_or_output_tokens_may_not_be_none(key: str) -> None:
    client = looplab.fake_client(ScriptedModel([reply(say("hi"), usage={key: None})]))  # type: ignore[dict-item]
    with pytest.raises(ScriptError, match=f"{key}=None"):
        client.messages.create(**ASK)  # type: ignore[call-overload]
