"""The fake API through the real SDK: a plain agent loop, ids, usage, retries."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from looplab import MODEL, ScriptedModel, call, fake_client, overloaded, say
from looplab.fake import ScriptExhausted

TOOLS = [
    {
        "name": "run_tests",
        "description": "Run the test suite of one module.",
        "input_schema": {
            "type": "object",
            "properties": {"module": {"type": "string"}},
            "required": ["module"],
        },
    }
]


def article_script() -> ScriptedModel:
    return ScriptedModel(
        [
            [say("Let me run the login tests."), call("run_tests", module="login")],
            [say("One test fails; running it again."), call("run_tests", module="login")],
            say("All login tests pass now."),
        ]
    )


def strict_client(model: ScriptedModel, **options: Any) -> anthropic.Anthropic:
    return fake_client(model, _strict_response_validation=True, **options)


def run_tests(module: str) -> str:
    return f"3 passed in {module}"


def article_loop(client: anthropic.Anthropic, task: str) -> tuple[Any, list[dict[str, Any]]]:
    """The article's loop, written plainly: create, check stop_reason, run tools, append."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
    while True:
        response = client.messages.create(
            model=MODEL, max_tokens=16000, tools=TOOLS, messages=messages
        )
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return response, messages
        results = []
        for block in response.content:
            if block.type == "tool_use":
                output = run_tests(**block.input)
                results.append({"type": "tool_result", "tool_use_id": block.id, "content": output})
        messages.append({"role": "user", "content": results})


def test_article_loop_runs_unmodified_to_end_turn() -> None:
    model = article_script()
    final, messages = article_loop(strict_client(model), "Fix the login tests.")
    assert final.stop_reason == "end_turn"
    assert final.content[0].text == "All login tests pass now."
    model.assert_complete()
    assert [len(body["messages"]) for body in model.requests] == [1, 3, 5]
    second = model.requests[1]["messages"]
    assert second[1]["content"][1]["type"] == "tool_use"
    assert second[2]["content"][0]["tool_use_id"] == second[1]["content"][1]["id"]
    assert len(messages) == 6


def _transcript(model: ScriptedModel) -> list[tuple[str, str, dict[str, Any]]]:
    client = strict_client(model)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Fix the login tests."}]
    seen = []
    for _ in range(3):
        raw = client.messages.with_raw_response.create(
            model=MODEL, max_tokens=1024, tools=TOOLS, messages=messages
        )
        response = raw.parse()
        seen.append((response.id, raw.request_id or "", response.usage.model_dump()))
        messages.append({"role": "assistant", "content": response.content})
        ids = [block.id for block in response.content if block.type == "tool_use"]
        if ids:
            messages.append(
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": i} for i in ids],
                }
            )
    return seen


def test_ids_and_usage_identical_across_runs() -> None:
    first = _transcript(article_script())
    assert first == _transcript(article_script())
    assert first[0][0] == "msg_01T2H9ZRNUBzwn32FxJbopME"
    assert first[0][1] == "req_011CpdN4tkVZCOTYkIUVt7zf"


def test_input_tokens_grow_with_history() -> None:
    usages = [usage for _, _, usage in _transcript(article_script())]
    inputs = [u["input_tokens"] for u in usages]
    assert inputs[0] < inputs[1] < inputs[2]
    assert all(u["cache_creation_input_tokens"] == 0 for u in usages)
    assert all(u["cache_read_input_tokens"] == 0 for u in usages)


def test_overloaded_then_ok_succeeds_after_one_retry() -> None:
    model = ScriptedModel([overloaded(), say("hello")])
    response = strict_client(model).messages.create(
        model=MODEL, max_tokens=100, messages=[{"role": "user", "content": "hi"}]
    )
    assert response.content[0].text == "hello"
    assert len(model.requests) == 2


def test_max_retries_zero_surfaces_overloaded_error() -> None:
    model = ScriptedModel([overloaded(), say("hello")])
    with pytest.raises(anthropic.OverloadedError) as caught:
        strict_client(model, max_retries=0).messages.create(
            model=MODEL, max_tokens=100, messages=[{"role": "user", "content": "hi"}]
        )
    assert caught.value.status_code == 529
    assert caught.value.api_message == "Overloaded"
    assert len(model.requests) == 1


def test_request_after_the_script_ends_names_request_and_last_message() -> None:
    model = ScriptedModel([say("hello")])
    client = strict_client(model)
    messages: list[Any] = [{"role": "user", "content": "hi"}]
    client.messages.create(model=MODEL, max_tokens=100, messages=messages)
    messages += [{"role": "assistant", "content": "hello"}, {"role": "user", "content": "again"}]
    with pytest.raises(ScriptExhausted) as caught:
        client.messages.create(model=MODEL, max_tokens=100, messages=messages)
    assert str(caught.value) == (
        "request 2 has no scripted step: the script has 1 step(s) and all were used. "
        'The last message was message 2 (user): "again". Add a step to the script, or make '
        "the loop stop sooner (check stop_reason)."
    )
    assert len(model.requests) == 2
