"""Context editing on the fake (`clear_tool_uses_20250919`), through the real SDK: the
model sees the edited prompt, `usage` counts it, the reply's `context_management` says
what was cleared, and the client's history is left whole. `clear_thinking_20251015` is
tested in test_fake_clear_thinking.py."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from looplab import MODEL, ScriptedModel, fake_client, say
from looplab.fake import FunctionModel
from looplab.fake.editing import PLACEHOLDER
from looplab.fake.models import Request
from looplab.fake.usage import estimate_tokens

BETA = ["context-management-2025-06-27"]
TOOLS = [{"name": name, "input_schema": {"type": "object"}} for name in ("lookup", "notes")]
RESULT = "line of a long log\n" * 100  # about 475 tokens each


def history(uses: int, name: str = "lookup") -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Find the failing test."}]
    for i in range(uses):
        tool = "notes" if name == "mixed" and i == 0 else ("lookup" if name == "mixed" else name)
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{i:02}", "name": tool, "input": {"page": i}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{i:02}", "content": RESULT}]})
    return messages


def send(messages: list[dict[str, Any]], edit: dict[str, Any], *, stream: bool = False,
         seen: list[Request] | None = None) -> tuple[Any, FunctionModel]:
    def answer(request: Request) -> Any:
        if seen is not None:
            seen.append(request)
        return say("The login test fails.")

    model = FunctionModel(answer)
    body: dict[str, Any] = {"model": MODEL, "max_tokens": 64, "messages": messages,
                            "tools": TOOLS, "betas": BETA,
                            "context_management": {"edits": [edit]}}
    client = fake_client(model)
    if stream:
        with client.beta.messages.stream(**body) as events:
            return events.get_final_message(), model
    return client.beta.messages.create(**body), model


def results(request: Request) -> list[Any]:
    return [block["content"] for message in request.messages
            if isinstance(message["content"], list)
            for block in message["content"] if block["type"] == "tool_result"]


@pytest.mark.parametrize("stream", [False, True])
def test_old_tool_results_are_cleared_past_the_trigger(stream: bool) -> None:
    messages = history(8)
    edit = {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens",
                                                             "value": 3000},
            "keep": {"type": "tool_uses", "value": 3}}
    seen: list[Request] = []
    reply, model = send(messages, edit, stream=stream, seen=seen)
    assert results(seen[0]) == [PLACEHOLDER] * 5 + [RESULT] * 3
    whole = {"model": MODEL, "messages": messages, "tools": TOOLS}
    edited = {**whole, "messages": seen[0].messages}
    assert reply.usage.input_tokens == estimate_tokens(edited) < estimate_tokens(whole) - 2000
    applied = reply.context_management.applied_edits
    assert [edit.model_dump() for edit in applied] == [{
        "type": "clear_tool_uses_20250919", "cleared_tool_uses": 5,
        "cleared_input_tokens": estimate_tokens(whole) - estimate_tokens(edited)}]
    assert model.requests[0]["messages"] == messages, "the client's history stays whole"


def test_defaults_keep_three_past_100000_input_tokens() -> None:
    messages = history(12)
    for message in messages[2::2]:
        message["content"][0]["content"] = RESULT * 20  # about 9,500 tokens each
    seen: list[Request] = []
    reply, _ = send(messages, {"type": "clear_tool_uses_20250919"}, seen=seen)
    assert results(seen[0]) == [PLACEHOLDER] * 9 + [RESULT * 20] * 3
    assert reply.context_management.applied_edits[0].cleared_tool_uses == 9
    small, _ = send(history(8), {"type": "clear_tool_uses_20250919"})
    assert small.context_management.applied_edits == []


def test_below_the_trigger_nothing_changes() -> None:
    messages = history(8)
    edit = {"type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": 1_000_000}}
    seen: list[Request] = []
    reply, _ = send(messages, edit, seen=seen)
    assert results(seen[0]) == [RESULT] * 8
    assert reply.context_management.applied_edits == []
    assert reply.usage.input_tokens == estimate_tokens(
        {"model": MODEL, "messages": messages, "tools": TOOLS})


def test_a_tool_uses_trigger_and_excluded_tools() -> None:
    edit = {"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 4},
            "keep": {"type": "tool_uses", "value": 2}, "exclude_tools": ["notes"]}
    seen: list[Request] = []
    reply, _ = send(history(6, "mixed"), edit, seen=seen)
    # toolu_00 is a `notes` call: never cleared; of the 5 lookups, the newest 2 stay
    assert results(seen[0]) == [RESULT] + [PLACEHOLDER] * 3 + [RESULT] * 2
    assert reply.context_management.applied_edits[0].cleared_tool_uses == 3
    seen.clear()
    send(history(4), edit, seen=seen)
    assert results(seen[0]) == [RESULT] * 4, "4 tool uses do not exceed a trigger of 4"


def test_clear_at_least_stops_a_small_edit() -> None:
    edit = {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens",
                                                             "value": 1000},
            "keep": {"type": "tool_uses", "value": 3},
            "clear_at_least": {"type": "input_tokens", "value": 50_000}}
    seen: list[Request] = []
    reply, _ = send(history(8), edit, seen=seen)
    assert results(seen[0]) == [RESULT] * 8
    assert reply.context_management.applied_edits == []


def test_count_tokens_counts_the_edited_prompt() -> None:
    client = fake_client(ScriptedModel([say("unused")]))
    messages = history(8)
    edit = {"type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": 3000}}
    count = client.beta.messages.count_tokens(
        model=MODEL, messages=messages, tools=TOOLS, betas=BETA,  # type: ignore[arg-type]
        context_management={"edits": [edit]})  # type: ignore[list-item]
    whole = estimate_tokens({"model": MODEL, "messages": messages, "tools": TOOLS})
    assert count.context_management is not None
    assert count.context_management.original_input_tokens == whole
    assert count.input_tokens < whole - 2000


@pytest.mark.parametrize(("edit", "what"), [
    ({"type": "compact_20260112", "instructions": "Keep the file names."},
     "context_management.edits.0.instructions"),
    ({"type": "clear_tool_uses_20250919", "clear_tool_inputs": True},
     "context_management.edits.0.clear_tool_inputs"),
])
def test_edits_the_fake_does_not_play_are_refused(edit: dict[str, Any], what: str) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(history(2), edit)
    assert caught.value.body["error"]["message"] == (  # type: ignore[index]
        f"looplab's fake does not simulate {what}; run live (LOOPLAB_LIVE=1) or script "
        "its effect")


@pytest.mark.parametrize("bad", [{"type": "input_tokens"}, {"type": "messages", "value": 3},
                                 {"type": "input_tokens", "value": -1}, 5])
def test_a_malformed_trigger_is_a_400(bad: Any) -> None:
    with pytest.raises(anthropic.BadRequestError, match="trigger"):
        send(history(2), {"type": "clear_tool_uses_20250919", "trigger": bad})
