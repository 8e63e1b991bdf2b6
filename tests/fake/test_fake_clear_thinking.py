"""Thinking block clearing on the fake (`clear_thinking_20251015`), through the real SDK:
the model sees older turns without their thinking, `usage` drops by what was cleared, the
reply's `context_management` says how many turns, and the client's history stays whole."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from beta_reply import beta_reply

from looplab import MODEL, call, fake_client, say, think
from looplab.fake import FunctionModel
from looplab.fake.models import Request

BETA = ["context-management-2025-06-27"]
TOOLS = [{"name": "lookup", "input_schema": {"type": "object"}}]
THINKING = {"type": "enabled", "budget_tokens": 1024}
ANSWERS = [
    [think("The logs first: page 0 names the failing test. " * 8), say("Looking."),
     call("lookup", page=0)],
    [think("Page 0 shows the login test failing on an expired token. " * 8),
     say("The login test fails.")],
    [think("Its token expired: the fixture sets a fixed date long past. " * 8),
     say("Its token expired.")],
    [think("A fresh token per run fixes it. " * 8), say("Make the token in the test.")],
    [think("The other tests use no token. " * 8), say("They pass.")],
]


class Chat:
    """A conversation with thinking on one fake, every request sent with `edits`; turn 1
    is a tool-use loop (two assistant messages, both thinking)."""

    def __init__(self) -> None:
        self.seen: list[Request] = []

        def answer(request: Request) -> Any:
            self.seen.append(request)
            return ANSWERS[min(len(self.seen), len(ANSWERS)) - 1]

        self.model = FunctionModel(answer)
        self.client = fake_client(self.model)
        self.messages: list[dict[str, Any]] = [
            {"role": "user", "content": "Find the failing test."}]

    def send(self, edits: list[dict[str, Any]], *, stream: bool = False,
             thinking: Any = THINKING) -> Any:
        body = {"model": MODEL, "max_tokens": 2048, "messages": self.messages,
                "tools": TOOLS, "betas": BETA, "thinking": thinking,
                "context_management": {"edits": edits}}
        return beta_reply(self.client, body, stream)

    def turn(self, edits: list[dict[str, Any]], then: dict[str, Any]) -> Any:
        reply = self.send(edits)
        self.messages += [{"role": "assistant", "content": reply.content}, then]
        return reply

    def three_turns(self, edits: list[dict[str, Any]]) -> None:
        """Three assistant turns, the first a tool-use loop: four assistant messages."""
        first = self.turn(edits, {"role": "user", "content": "placeholder"})
        self.messages[-1] = {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": first.content[-1].id, "content": "login"}]}
        self.turn(edits, {"role": "user", "content": "Why?"})
        self.turn(edits, {"role": "user", "content": "How do I fix it?"})
        self.turn(edits, {"role": "user", "content": "And the other tests?"})


def thoughts(request: Request) -> list[int]:
    """How many thinking blocks each assistant message the model saw carries."""
    return [sum(block["type"] == "thinking" for block in message["content"])
            for message in request.messages if message["role"] == "assistant"]


KEEP_ALL = [{"type": "clear_thinking_20251015", "keep": "all"}]


@pytest.mark.parametrize("stream", [False, True])
def test_older_turns_lose_their_thinking_and_usage_drops_by_it(stream: bool) -> None:
    chat = Chat()
    chat.three_turns(KEEP_ALL)
    whole = chat.send(KEEP_ALL, stream=stream)
    assert thoughts(chat.seen[-1]) == [1, 1, 1, 1]
    assert whole.context_management.applied_edits == []
    keep_one = [{"type": "clear_thinking_20251015",
                 "keep": {"type": "thinking_turns", "value": 1}}]
    edited = chat.send(keep_one, stream=stream)
    # turn 1 (the tool-use loop: two messages) and turn 2 lose their thinking; turn 3 keeps it
    assert thoughts(chat.seen[-1]) == [0, 0, 0, 1]
    [applied] = edited.context_management.applied_edits
    assert applied.type == "clear_thinking_20251015"
    assert applied.cleared_thinking_turns == 2
    assert applied.cleared_input_tokens > 100
    assert edited.usage.input_tokens == whole.usage.input_tokens - applied.cleared_input_tokens
    sent = chat.model.requests[-1]["messages"]
    assert [block["type"] for block in sent[1]["content"]] == ["thinking", "text", "tool_use"], (
        "the client's history stays whole")


def test_keep_counts_turns_and_defaults_to_one() -> None:
    chat = Chat()
    chat.three_turns(KEEP_ALL)
    two = chat.send([{"type": "clear_thinking_20251015",
                      "keep": {"type": "thinking_turns", "value": 2}}])
    assert thoughts(chat.seen[-1]) == [0, 0, 1, 1]
    assert two.context_management.applied_edits[0].cleared_thinking_turns == 1
    default = chat.send([{"type": "clear_thinking_20251015"}])
    assert thoughts(chat.seen[-1]) == [0, 0, 0, 1]
    assert default.context_management.applied_edits[0].cleared_thinking_turns == 2
    for keep in ({"type": "all"}, {"type": "thinking_turns", "value": 3}):
        kept = chat.send([{"type": "clear_thinking_20251015", "keep": keep}])
        assert thoughts(chat.seen[-1]) == [1, 1, 1, 1]
        assert kept.context_management.applied_edits == []


def test_with_tool_result_clearing_both_edits_are_reported_in_order() -> None:
    chat = Chat()
    chat.three_turns(KEEP_ALL)
    reply = chat.send([{"type": "clear_thinking_20251015"},
                       {"type": "clear_tool_uses_20250919",
                        "trigger": {"type": "tool_uses", "value": 0},
                        "keep": {"type": "tool_uses", "value": 0}}])
    assert [edit.type for edit in reply.context_management.applied_edits] == [
        "clear_thinking_20251015", "clear_tool_uses_20250919"]
    assert thoughts(chat.seen[-1]) == [0, 0, 0, 1]


def test_count_tokens_counts_the_prompt_without_the_cleared_thinking() -> None:
    chat = Chat()
    chat.three_turns(KEEP_ALL)
    count = chat.client.beta.messages.count_tokens(
        model=MODEL, messages=chat.messages, tools=TOOLS, betas=BETA,  # type: ignore[arg-type]
        thinking=THINKING,  # type: ignore[arg-type]
        context_management={"edits": [{"type": "clear_thinking_20251015"}]})
    assert count.context_management is not None
    assert count.input_tokens < count.context_management.original_input_tokens - 100


@pytest.mark.parametrize(("edits", "thinking", "match"), [
    ([{"type": "clear_thinking_20251015"}], {"type": "disabled"}, "requires thinking"),
    ([{"type": "clear_thinking_20251015"}], None, "requires thinking"),
    ([{"type": "clear_tool_uses_20250919"}, {"type": "clear_thinking_20251015"}], THINKING,
     "must be listed first"),
    ([{"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 0}}],
     THINKING, r"edits\.0\.keep"),
    ([{"type": "clear_thinking_20251015", "keep": {"type": "tool_uses", "value": 2}}],
     THINKING, r"edits\.0\.keep"),
    ([{"type": "clear_thinking_20251015", "keep": "none"}], THINKING, r"edits\.0\.keep"),
])
def test_a_misused_edit_is_a_400_and_uses_no_script_step(
        edits: list[dict[str, Any]], thinking: Any, match: str) -> None:
    chat = Chat()
    with pytest.raises(anthropic.BadRequestError, match=match):
        chat.send(edits, thinking=thinking)
    assert chat.seen == []
