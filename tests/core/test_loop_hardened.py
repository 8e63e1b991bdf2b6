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
    assert result.detail.startswith(("ValueError", "RecursionError"))
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


def test_ctrl_c_while_calls_run_says_they_were_interrupted_while_running() -> None:
    import signal
    import threading
    import time

    finished = threading.Event()

    @tool
    def quick() -> str:
        """Answer at once."""
        return "quick done"

    @tool
    def slow() -> str:
        """Press Ctrl-C, then finish a side effect."""
        time.sleep(0.2)  # the loop is waiting for the calls by now
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)  # Ctrl-C
        time.sleep(0.5)
        finished.set()
        return "slow done"

    model = ScriptedModel([[call("quick"), call("slow")], say("never")])
    # Ctrl-C raises KeyboardInterrupt only where SIGINT has Python's own handler (a test
    # runner's worker may ignore it)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        result = run_agent(fake_client(model), "hi", tools=[quick, slow])
    finally:
        signal.signal(signal.SIGINT, before)
    assert result.status == "interrupted"
    calls = result.turns[0].tool_calls
    assert [c.outcome for c in calls] == ["ran", "interrupted"]
    assert calls[0].result == "quick done"
    assert str(calls[1].result).startswith("interrupted while running: ")
    assert "not run" not in str(result.messages[-1])
    finished.wait(5)
