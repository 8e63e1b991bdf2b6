"""What the live API refuses before reading the request: size and unknown parameters."""

from __future__ import annotations

import anthropic
import pytest

import looplab
from looplab.fake import ScriptedModel, say
from looplab.fake.server import MAX_BODY_BYTES

ASK = {"model": "claude-test-model", "max_tokens": 100}


def test_a_body_over_32_mb_gets_413_request_too_large() -> None:
    client = looplab.fake_client(ScriptedModel([say("hi")]), max_retries=0)
    big = "x" * MAX_BODY_BYTES
    with pytest.raises(anthropic.APIStatusError) as info:
        client.messages.create(**ASK, messages=[{"role": "user", "content": big}])
    assert info.value.status_code == 413
    assert info.value.type == "request_too_large"  # type: ignore[attr-defined]


def test_an_unknown_top_level_parameter_is_refused() -> None:
    client = looplab.fake_client(ScriptedModel([say("hi")]))
    with pytest.raises(
        anthropic.BadRequestError, match="temprature: Extra inputs are not permitted"
    ):
        client.messages.create(
            **ASK,
            messages=[{"role": "user", "content": "hi"}],
            extra_body={"temprature": 0.5},
        )


def test_known_parameters_still_pass() -> None:
    client = looplab.fake_client(ScriptedModel([say("hi")]))
    reply = client.messages.create(
        **ASK, messages=[{"role": "user", "content": "hi"}], metadata={"user_id": "u1"}
    )
    assert reply.stop_reason == "end_turn"
