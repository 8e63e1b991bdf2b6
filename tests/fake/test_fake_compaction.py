"""Server-side compaction on the fake (`compact_20260112`), through the real SDK: past the
trigger the reply starts with a `compaction` block (or is the block alone, stop_reason
`compaction`, when paused), the block sent back replaces the history before it, and
`usage.iterations` reports the compaction apart from the answer."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from looplab import MODEL, fake_client, say
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
    if stream:
        with client.beta.messages.stream(**body) as events:
            return events.get_final_message()
    return client.beta.messages.create(**body)


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
