"""`max_tokens` and `stop_sequences` cut every reply where the live model would stop.

Token counts are the fake's estimate: 4 ASCII characters make one token.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from looplab import MODEL, ScriptedModel, call, fake_client, say, think, truncate
from looplab.fake import Reply
from looplab.fake.steps import StepLike

TOOL = {
    "name": "write_file",
    "description": "Write a file.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
}
HI = [{"role": "user", "content": "hi"}]


def create(step: StepLike, *, max_tokens: int = 100, **params: Any) -> Any:
    client = fake_client(ScriptedModel([step]), _strict_response_validation=True)
    return client.messages.create(
        model=MODEL, max_tokens=max_tokens, messages=HI, tools=[TOOL], **params
    )


def test_a_reply_of_exactly_max_tokens_is_whole() -> None:
    response = create(say("a" * 40), max_tokens=10)
    assert response.stop_reason == "end_turn"
    assert response.content[0].text == "a" * 40
    assert response.usage.output_tokens == 10


def test_a_reply_one_token_over_max_tokens_is_cut() -> None:
    response = create(say("a" * 41), max_tokens=10)
    assert response.stop_reason == "max_tokens" and response.stop_sequence is None
    assert response.content[0].text == "a" * 40
    assert response.usage.output_tokens == 10


def test_a_cut_tool_call_keeps_the_input_written_so_far() -> None:
    # name: 10 characters = 3 tokens; the rest (7 tokens = 28 characters) is input JSON
    response = create(call("write_file", path="x" * 40), max_tokens=10)
    assert response.stop_reason == "max_tokens"
    block = response.content[0]
    assert block.type == "tool_use" and block.id.startswith("toolu_01")
    assert block.input == {"path": "x" * 19}  # '{"path":"' is 9 of the 28 characters
    assert response.usage.output_tokens == 10


def test_a_tool_call_whose_name_does_not_fit_is_left_out() -> None:
    response = create(Reply((say("a" * 36), call("write_file", path="p"))), max_tokens=10)
    assert response.stop_reason == "max_tokens"
    assert [block.type for block in response.content] == ["text"]


def test_thinking_spends_max_tokens_first() -> None:
    response = create([think("t" * 80), say("Done.")], max_tokens=10)
    assert response.stop_reason == "max_tokens"
    assert [block.type for block in response.content] == ["thinking"]
    assert response.content[0].thinking == "t" * 40


def test_a_scripted_truncate_counts_max_tokens() -> None:
    response = create(truncate(say("Writing")), max_tokens=50)
    assert response.stop_reason == "max_tokens"
    assert response.content[0].text == "Writing"
    assert response.usage.output_tokens == 50


def test_a_stop_sequence_cuts_the_text_before_it() -> None:
    response = create(say("Plan: 1. Run. 2. Read."), stop_sequences=["2."])
    assert response.stop_reason == "stop_sequence" and response.stop_sequence == "2."
    assert response.content[0].text == "Plan: 1. Run. "
    assert response.usage.output_tokens == 4  # 14 characters returned


def test_the_earliest_stop_sequence_wins() -> None:
    response = create(say("alpha beta gamma"), stop_sequences=["gamma", "beta"])
    assert response.stop_sequence == "beta"
    assert response.content[0].text == "alpha "


def test_a_stop_sequence_at_the_very_end_still_stops() -> None:
    response = create(say("doneEND"), stop_sequences=["END"])
    assert (response.stop_reason, response.content[0].text) == ("stop_sequence", "done")


def test_a_stop_sequence_at_the_start_leaves_no_empty_text_block() -> None:
    response = create([say("END of story"), call("write_file", path="p")], stop_sequences=["END"])
    assert response.stop_reason == "stop_sequence"
    assert response.content == []


def test_a_stop_sequence_in_a_tool_input_cuts_the_input() -> None:
    response = create(call("write_file", path="a/STOP/b"), stop_sequences=["STOP"])
    assert response.stop_reason == "stop_sequence"
    assert response.content[0].input == {"path": "a/"}


def test_a_stop_sequence_in_thinking_stops_the_reply() -> None:
    response = create([think("Plan. HALT. More."), say("Answer.")], stop_sequences=["HALT"])
    assert response.stop_reason == "stop_sequence"
    assert [b.type for b in response.content] == ["thinking"]
    assert response.content[0].thinking == "Plan. "


def test_text_without_a_stop_sequence_is_untouched() -> None:
    response = create(say("No sequence here."), stop_sequences=["###"])
    assert response.stop_reason == "end_turn" and response.stop_sequence is None


def test_max_tokens_before_the_stop_sequence_wins() -> None:
    response = create(say("a" * 60 + "END"), max_tokens=10, stop_sequences=["END"])
    assert response.stop_reason == "max_tokens" and response.content[0].text == "a" * 40


@pytest.mark.parametrize(
    "params",
    [{"max_tokens": 10}, {"max_tokens": 100, "stop_sequences": ["2."]}],
    ids=["max_tokens", "stop_sequence"],
)
def test_streaming_sends_the_same_cut_reply(params: dict[str, Any]) -> None:
    step = [say("Plan: 1. Run the login tests. 2. Read the log."), call("write_file", path="p")]
    created = create(step, **params)
    client = fake_client(ScriptedModel([step]), _strict_response_validation=True)
    with client.messages.stream(model=MODEL, messages=HI, tools=[TOOL], **params) as stream:
        streamed = stream.get_final_message()
    assert _blocks(streamed) == _blocks(created)
    assert (streamed.stop_reason, streamed.stop_sequence) == (
        created.stop_reason,
        created.stop_sequence,
    )
    assert streamed.usage.output_tokens == created.usage.output_tokens


@settings(max_examples=40, deadline=None)
@given(
    text=st.text(alphabet="ab. 中é\n", min_size=1, max_size=80),
    max_tokens=st.integers(min_value=1, max_value=30),
    sequence=st.sampled_from(["b.", "中", "\n\n", "zz"]),
)
def test_a_reply_never_exceeds_max_tokens_nor_shows_a_stop_sequence(
    text: str, max_tokens: int, sequence: str
) -> None:
    response = create(say(text), max_tokens=max_tokens, stop_sequences=[sequence])
    returned = "".join(block.text for block in response.content)
    assert text.startswith(returned) and sequence not in returned
    assert response.usage.output_tokens <= max_tokens
    if response.stop_reason == "end_turn":
        assert returned == text
    if response.stop_reason == "stop_sequence":
        assert text[len(returned) :].startswith(sequence)


def _blocks(message: Any) -> list[tuple[str, Any]]:
    return [(b.type, b.text if b.type == "text" else b.input) for b in message.content]
