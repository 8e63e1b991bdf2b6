"""The token gate fails closed: against an Anthropic-compatible endpoint whose replies carry
no usable `usage` (none, `null`, a count missing, negative, or not a number), a run with a
token budget stops at the first such reply and says why, instead of running on blind until
`max_turns`. Without a budget there is nothing to enforce, and the run goes on."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2 as httpx  # the SDK's own HTTP client package
import pytest

from looplab import Limits, check_history, run_agent, tool

TOOL_USE = {"type": "tool_use", "id": "toolu_01", "name": "read_file",
            "input": {"path": "login.py"}}


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return "def login(): ..."


def endpoint(usage: Any) -> tuple[anthropic.Anthropic, list[dict[str, Any]]]:
    """A client of an endpoint that always asks for the same tool call, with `usage` as
    given (`...`: no usage field at all)."""
    sent: list[dict[str, Any]] = []

    def reply(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        body: dict[str, Any] = {
            "id": f"msg_{len(sent)}", "type": "message", "role": "assistant",
            "model": "claude-opus-5-5", "content": [dict(TOOL_USE, id=f"toolu_{len(sent)}")],
            "stop_reason": "tool_use", "stop_sequence": None}
        if usage is not ...:
            body["usage"] = usage
        return httpx.Response(200, json=body)

    client = anthropic.Anthropic(api_key="sk-test", base_url="http://compatible.test",
                                 http_client=httpx.Client(transport=httpx.MockTransport(reply)),
                                 max_retries=0)
    return client, sent


BLIND = {
    "no usage": ...,
    "usage null": None,
    "empty usage": {},
    "negative": {"input_tokens": -50, "output_tokens": 10},
    "not a number": {"input_tokens": "lots", "output_tokens": 10},
    "output missing": {"input_tokens": 120},
}


@pytest.mark.parametrize("usage", list(BLIND.values()), ids=list(BLIND))
def test_a_reply_without_usable_usage_stops_a_budgeted_run(usage: Any) -> None:
    client, sent = endpoint(usage)
    result = run_agent(client, "Read login.py.", tools=[read_file],
                       limits=Limits(token_budget=2000, max_turns=50, max_repeats=None))
    assert len(sent) == 1  # not 50: the gate stopped at the first blind reply
    assert result.status == "token_budget"
    assert "no usable token counts" in result.detail
    assert "token_budget=None" in str(result)  # and says how to run without the gate
    assert check_history(result.messages) == []  # the open call was answered, not run
    [call] = result.turns[0].tool_calls
    assert call.outcome == "not_run" and call.is_error


def test_a_run_without_a_budget_goes_on() -> None:
    client, sent = endpoint(None)
    result = run_agent(client, "Read login.py.", tools=[read_file],
                       limits=Limits(token_budget=None, max_turns=3, max_repeats=None))
    assert result.status == "max_turns" and len(sent) == 3


def test_usage_at_the_exact_bound_is_counted_not_refused() -> None:
    client, sent = endpoint({"input_tokens": 1000, "output_tokens": 0,
                             "cache_read_input_tokens": None})
    result = run_agent(client, "Read login.py.", tools=[read_file],
                       limits=Limits(token_budget=2000, max_turns=50, max_repeats=None))
    assert result.status == "token_budget" and len(sent) == 2  # 2,000 of 2,000: gate closed
    assert "2,000 of 2,000 tokens used" in result.detail
