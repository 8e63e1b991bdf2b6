"""The loop never raises for what a user or an endpoint can do to it: an echoed key, an
async client, a reply or a history nested too deeply to serialise."""

from __future__ import annotations

from typing import Any

import pytest

from looplab import ScriptedModel, call, fake_client, run_agent, say, tool
from looplab.fake import api_error, async_fake_client
from looplab.fake.client import FAKE_API_KEY


def test_an_echoed_key_never_reaches_the_result() -> None:
    echo = api_error(401, "authentication_error", f"invalid x-api-key: {FAKE_API_KEY}")
    result = run_agent(fake_client(ScriptedModel([echo])), "hi")
    assert result.status == "api_error"
    assert "invalid x-api-key: [redacted]" in result.detail
    assert FAKE_API_KEY not in result.detail and FAKE_API_KEY not in str(result)


def test_an_async_client_is_named() -> None:
    with pytest.raises(TypeError, match="run_agent takes an anthropic.Anthropic, not an "
                                        "AsyncAnthropic"):
        run_agent(async_fake_client(ScriptedModel([say("hi")])), "hi")  # type: ignore[arg-type]


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


@tool
def echo(x: dict) -> str:  # type: ignore[type-arg]
    """Echo."""
    return "ok"


@pytest.mark.parametrize("depth", [400, 900])
def test_a_call_nested_too_deeply_stops_the_run_with_its_history(depth: int) -> None:
    model = ScriptedModel([call("echo", x=nested(depth)), say("never")])
    result = run_agent(fake_client(model), "hi", tools=[echo])
    assert result.status == "api_error"
    assert result.detail.startswith(("the reply could not be read: ValueError",
                                     "the reply could not be read: RecursionError"))
    assert result.messages[0] == {"role": "user", "content": "hi"}
    assert result.usage["output_tokens"] > 0  # the reply was paid for, and counted


def test_a_scripted_reply_too_deep_to_send_stops_the_run() -> None:
    model = ScriptedModel([call("echo", x=nested(3000)), say("never")])
    result = run_agent(fake_client(model), "hi", tools=[echo])
    assert result.status == "api_error"
    assert "the scripted reply is nested too deeply to send as JSON" in result.detail
    assert result.messages == [{"role": "user", "content": "hi"}]


def test_the_fake_refuses_a_body_nested_too_deeply_like_the_api() -> None:
    client = fake_client(ScriptedModel([say("never")]))
    body = b'{"model": "claude-opus-4-1", "max_tokens": 9, "messages": [], "x": ' + \
        b"[" * 3000 + b"]" * 3000 + b"}"
    response = client._client.post("https://api.anthropic.com/v1/messages", content=body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith("The request body is nested too deeply to parse.")


def test_ctrl_c_in_a_tool_answers_every_call_and_the_run_can_go_on() -> None:
    import os
    import signal

    @tool
    def quick() -> str:
        """Answer at once."""
        return "quick done"

    @tool
    def slow() -> str:
        """Ctrl-C arrives while this runs."""
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, to this process's main thread
        raise AssertionError("the interrupt comes before this line")

    model = ScriptedModel([[call("quick"), call("slow"), call("quick")], say("never")])
    # Ctrl-C raises KeyboardInterrupt only where SIGINT has Python's own handler (a test
    # runner's worker may ignore it)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        result = run_agent(fake_client(model), "hi", tools=[quick, slow])
    finally:
        signal.signal(signal.SIGINT, before)
    assert result.status == "interrupted"
    calls = result.turns[0].tool_calls
    assert [c.outcome for c in calls] == ["ran", "interrupted", "not_run"]
    assert calls[0].result == "quick done"
    assert calls[1].result == "interrupted: the run was stopped by the user (KeyboardInterrupt)"
    assert str(calls[2].result).startswith("not run: the run was stopped by the user")
    assert [b["tool_use_id"] for b in result.messages[-1]["content"]] == [c.id for c in calls]
    again = run_agent(fake_client(ScriptedModel([say("done")])), result.messages,
                      tools=[quick, slow])
    assert str(again) == "done"
