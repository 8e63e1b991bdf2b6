"""Server-side compaction on the fake (`compact_20260112`, and on demand with `compaction`),
through the real SDK: past the trigger the reply starts with a `compaction` block (or is
the block alone, stop_reason `compaction`, when paused or asked for), the block sent back
replaces the history before it, and `usage.iterations` reports the compaction apart from
the answer."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from anthropic import beta_tool
from beta_reply import beta_reply

from looplab import MODEL, ScriptedModel, call, fake_client, say
from looplab.fake import FunctionModel
from looplab.fake.models import Request
from looplab.fake.usage import estimate_tokens

BETA = ["compact-2026-01-12"]
LONG = "word " * 96_000  # about 120,000 tokens
QUESTION = "Which test fails?"


def edit(**fields: Any) -> dict[str, Any]:
    return {"edits": [{"type": "compact_20260112",
                       "trigger": {"type": "input_tokens", "value": 50_000}, **fields}]}


def history() -> list[dict[str, Any]]:
    return [{"role": "user", "content": LONG},
            {"role": "assistant", "content": "Read it."},
            {"role": "user", "content": QUESTION}]


class Model:
    def __init__(self) -> None:
        self.seen: list[Request] = []
        self.fake = FunctionModel(self.answer)

    def answer(self, request: Request) -> Any:
        self.seen.append(request)
        return say("test_login fails.")


def create(model: Model, messages: list[dict[str, Any]], stream: bool = False,
           **extra: Any) -> Any:
    client = fake_client(model.fake)
    body = {"model": MODEL, "max_tokens": 64, "messages": messages, "betas": BETA, **extra}
    return beta_reply(client, body, stream)


@pytest.mark.parametrize("stream", [False, True])
def test_past_the_trigger_the_reply_starts_with_a_compaction_block(stream: bool) -> None:
    model = Model()
    messages = history()
    reply = create(model, messages, stream, context_management=edit())
    block, answer = reply.content
    assert block.type == "compaction"
    assert "about 120,0" in block.content and block.content.endswith(QUESTION)
    assert answer.text == "test_login fails." and reply.stop_reason == "end_turn"
    assert [m["content"][0]["type"] for m in model.seen[0].messages] == ["compaction"]
    compaction, turn = reply.usage.iterations
    whole = estimate_tokens({"model": MODEL, "messages": messages})
    assert (compaction.type, compaction.input_tokens) == ("compaction", whole)
    assert turn.type == "message" and turn.input_tokens == reply.usage.input_tokens < 200
    assert model.fake.requests[0]["messages"] == messages, "the client's history stays whole"


def test_below_the_trigger_nothing_is_compacted() -> None:
    model = Model()
    short = [{"role": "user", "content": QUESTION}]
    reply = create(model, short, context_management=edit())
    assert [block.type for block in reply.content] == ["text"]
    assert reply.usage.iterations is None
    assert model.seen[0].messages == short
    with pytest.raises(anthropic.BadRequestError, match="greater than or equal to 50000"):
        create(model, short, context_management={"edits": [
            {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 1000}}]})


@pytest.mark.parametrize("stream", [False, True])
def test_a_paused_compaction_returns_the_block_alone(stream: bool) -> None:
    model = Model()
    messages = history()
    paused = create(model, messages, stream,
                    context_management=edit(pause_after_compaction=True))
    assert [block.type for block in paused.content] == ["compaction"]
    assert paused.stop_reason == "compaction"
    assert model.seen == [], "no model turn ran"
    assert (paused.usage.input_tokens, paused.usage.output_tokens) == (0, 0)
    # As the SDK's runner does: append the turn and send again.
    resumed = [*messages, {"role": "assistant", "content": paused.to_dict()["content"]}]
    reply = create(model, resumed, stream, context_management=edit(pause_after_compaction=True))
    assert [block.type for block in reply.content] == ["text"]
    assert [m["role"] for m in model.seen[0].messages] == ["assistant"]
    assert reply.usage.input_tokens < 200


def test_the_block_sent_back_replaces_the_history_before_it() -> None:
    model = Model()
    first = create(model, history(), context_management=edit())
    later = [*history(), {"role": "assistant", "content": first.to_dict()["content"]},
             {"role": "user", "content": "And why?"}]
    reply = create(model, later, context_management=edit())
    seen = model.seen[1].messages
    assert [m["role"] for m in seen] == ["assistant", "user"]
    assert seen[0]["content"][0]["type"] == "compaction"
    assert [block.type for block in reply.content] == ["text"], "no second compaction"
    assert reply.usage.input_tokens < 200


def test_a_failed_compaction_block_is_a_no_op() -> None:
    model = Model()
    failed = [*history(), {"role": "assistant", "content": [
        {"type": "compaction", "content": None}, {"type": "text", "text": "Noted."}]},
        {"role": "user", "content": "Go on."}]
    reply = create(model, failed)
    assert len(model.seen[0].messages) == 5
    assert reply.usage.input_tokens > 100_000


# -- on demand: `compaction: {"type": "summarize"}` (the SDK runner's compact_before_next_turn)

ON_DEMAND = ["compact-2026-09-04"]
SHORT = [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": "Looking."},
         {"role": "user", "content": "Summarise first."}]


@pytest.mark.parametrize("stream", [False, True])
def test_on_demand_compaction_returns_the_block_alone(stream: bool) -> None:
    model = Model()
    reply = create(model, SHORT, stream, compaction={"type": "summarize"})
    assert [block.type for block in reply.content] == ["compaction"]
    assert reply.stop_reason == "compaction" and model.seen == []
    assert reply.content[0].content.endswith("Summarise first.")
    compacted = [{"role": "assistant", "content": reply.to_dict()["content"]},
                 {"role": "user", "content": "Go on."}]
    after = create(model, compacted)
    assert [m["role"] for m in model.seen[0].messages] == ["assistant", "user"]
    assert after.content[0].text == "test_login fails."


def test_the_sdk_runner_compacts_before_the_next_turn() -> None:
    def lookup() -> str:
        """Look the failing test up."""
        return "test_login failed at line 42. " * 40

    runner = fake_client(ScriptedModel([call("lookup"), say("done")])).beta.messages.tool_runner(
        model=MODEL, max_tokens=200, tools=[beta_tool(lookup)], betas=ON_DEMAND,
        messages=[{"role": "user", "content": QUESTION}])
    stops = []
    for message in runner:
        stops.append(message.stop_reason)
        if len(stops) == 1:
            runner.compact_before_next_turn()
    assert stops == ["tool_use", "compaction", "end_turn"]


@pytest.mark.parametrize(("extra", "refused"), [
    ({"stop_sequences": ["END"]}, "stop_sequences"),
    ({"context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]}},
     "context_management"),
    ({"output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}},
     "output_config.format"),
])
def test_on_demand_compaction_refuses_what_only_shapes_a_reply(extra: dict[str, Any],
                                                                refused: str) -> None:
    with pytest.raises(anthropic.BadRequestError, match=refused):
        create(Model(), SHORT, compaction={"type": "summarize"}, **extra)


def test_compaction_instructions_are_refused_unless_blank() -> None:
    with pytest.raises(anthropic.BadRequestError,
                       match="does not simulate compaction.instructions"):
        create(Model(), SHORT, compaction={"type": "summarize", "instructions": "Keep names."})
    reply = create(Model(), SHORT, compaction={"type": "summarize", "instructions": "  "})
    assert reply.stop_reason == "compaction"
