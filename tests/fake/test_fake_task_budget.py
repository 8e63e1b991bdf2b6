"""Task budgets on the fake, through the real SDK: the model sees the countdown of the
agentic loop (a `FunctionModel` reads it as `request.task_budget_remaining`), and, as
live, a spent budget stops nothing: the model paces itself."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from looplab import MODEL, call, fake_client, say
from looplab.fake import FunctionModel
from looplab.fake.models import Request
from looplab.fake.usage import MESSAGE_OVERHEAD, block_tokens

BETA = ["task-budgets-2026-03-13"]
TOOLS = [{"name": "read_log", "input_schema": {"type": "object"}}]
LOG = "error in test_login line 42\n" * 140  # about 980 tokens


def budget(total: int, remaining: int | None = None) -> dict[str, Any]:
    task: dict[str, Any] = {"type": "tokens", "total": total}
    if remaining is not None:
        task["remaining"] = remaining
    return {"task_budget": task}


def run(total: int, stream: bool = False) -> tuple[list[int | None], Any]:
    seen: list[int | None] = []

    def model(request: Request) -> Any:
        seen.append(request.task_budget_remaining)
        left = request.task_budget_remaining
        if left is not None and left < 2_500:
            return say("Budget nearly spent: test_login fails at line 42; not all logs read.")
        return call("read_log")

    client = fake_client(FunctionModel(model))
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Why does CI fail?"}]
    while True:
        body = {"model": MODEL, "max_tokens": 256, "messages": messages, "tools": TOOLS,
                "betas": BETA, "output_config": budget(total)}
        if stream:
            with client.beta.messages.stream(**body) as events:
                reply = events.get_final_message()
        else:
            reply = client.beta.messages.create(**body)
        messages.append({"role": "assistant", "content": reply.to_dict()["content"]})
        if reply.stop_reason != "tool_use":
            return seen, messages
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": reply.content[0].id, "content": LOG}]})


@pytest.mark.parametrize("stream", [False, True])
def test_the_model_sees_the_countdown_and_paces_itself(stream: bool) -> None:
    seen, messages = run(8_000, stream)
    assert seen[0] == 8_000
    spent = [sum(MESSAGE_OVERHEAD + sum(block_tokens(b) for b in m["content"])
                 for m in messages[1:1 + 2 * turn]) for turn in range(len(seen))]
    assert seen == [8_000 - tokens for tokens in spent]
    assert all(a > b for a, b in zip(seen, seen[1:], strict=False))
    assert 3 <= len(seen) <= 8
    assert messages[-1]["content"][0]["text"].startswith("Budget nearly spent")


def test_a_new_human_turn_starts_a_new_loop_and_remaining_carries_over() -> None:
    seen: list[int | None] = []
    client = fake_client(FunctionModel(lambda r: seen.append(r.task_budget_remaining) or "ok"))
    history = [{"role": "user", "content": "Why?"},
               {"role": "assistant", "content": LOG},
               {"role": "user", "content": "And now?"}]
    client.beta.messages.create(model=MODEL, max_tokens=16, messages=history, betas=BETA,
                                output_config=budget(20_000, remaining=5_000))
    assert seen == [5_000]


def test_a_spent_budget_stops_nothing() -> None:
    client = fake_client(FunctionModel(lambda r: call("read_log")))
    reply = client.beta.messages.create(
        model=MODEL, max_tokens=64, tools=TOOLS, betas=BETA,  # type: ignore[arg-type]
        messages=[{"role": "user", "content": "Go."}],
        output_config=budget(20_000, remaining=0))
    assert reply.stop_reason == "tool_use"


def test_without_a_budget_there_is_no_countdown() -> None:
    seen: list[int | None] = []
    client = fake_client(FunctionModel(lambda r: seen.append(r.task_budget_remaining) or "ok"))
    client.messages.create(model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "x"}])
    assert seen == [None]


@pytest.mark.parametrize("task", [{"type": "dollars", "total": 5}, {"type": "tokens"},
                                  {"type": "tokens", "total": 0},
                                  {"type": "tokens", "total": 100, "remaining": 101}])
def test_a_malformed_task_budget_is_a_400(task: dict[str, Any]) -> None:
    client = fake_client(FunctionModel(lambda r: "ok"))
    with pytest.raises(anthropic.BadRequestError, match="output_config.task_budget"):
        client.beta.messages.create(model=MODEL, max_tokens=16, betas=BETA,
                                    messages=[{"role": "user", "content": "x"}],
                                    output_config={"task_budget": task})  # type: ignore[typeddict-item]
