"""A streamed reply written at a speed (`reply(..., tokens_per_s=...)`), through the real SDK:
the first event waits `delay_s`, each delta then waits for its own tokens, on the client's
`FakeClock`; the stream is read event by event, so a reader sees text before the end."""

from __future__ import annotations

import asyncio

import pytest

from looplab import MODEL, ScriptedModel, async_fake_client, call, fake_client, say
from looplab.fake import FakeClock, reply
from looplab.fake.usage import text_tokens

TEXT = "The login test fails because the session cookie expires before the redirect. " * 3
ASK = [{"role": "user", "content": "Why does it fail?"}]
TOOL = {"name": "write_note", "input_schema": {"type": "object"}}


def arrivals(step: object) -> tuple[list[tuple[str, float]], float, FakeClock]:
    clock = FakeClock()
    client = fake_client(ScriptedModel([step]), clock=clock)
    seen = []
    with client.messages.stream(model=MODEL, max_tokens=1000, messages=ASK,
                                tools=[TOOL]) as events:  # type: ignore[list-item]
        for event in events:
            if event.type == "content_block_delta":
                seen.append((event.delta.type, clock()))
    return seen, clock(), clock


def test_a_paced_stream_arrives_delta_by_delta_after_the_first_token_wait() -> None:
    seen, end, _ = arrivals(reply(say(TEXT), delay_s=0.5, tokens_per_s=50))
    texts = [t for kind, t in seen if kind == "text_delta"]
    assert len(texts) > 3 and texts == sorted(texts) and len(set(texts)) == len(texts)
    assert texts[0] == pytest.approx(0.5 + text_tokens(TEXT[:24]) / 50)
    # every piece's tokens at 50 a second, after the half second to the first event
    assert end == pytest.approx(0.5 + sum(text_tokens(TEXT[i:i + 24])
                                          for i in range(0, len(TEXT), 24)) / 50)
    assert texts[0] < end / 2


def test_a_tool_calls_input_is_paced_too() -> None:
    seen, end, _ = arrivals(reply(say("Noting it."), call("write_note", text=TEXT),
                                  tokens_per_s=20))
    pieces = [t for kind, t in seen if kind == "input_json_delta"]
    assert len(pieces) > 3 and pieces == sorted(pieces) and pieces[-1] == end > pieces[0]


def test_without_a_pace_the_whole_stream_arrives_at_once() -> None:
    seen, end, _ = arrivals(reply(say(TEXT), delay_s=0.5))
    assert {t for _, t in seen} == {0.5} and end == 0.5


def test_an_async_client_is_paced_on_its_clock() -> None:
    clock = FakeClock()
    client = async_fake_client(ScriptedModel([reply(say(TEXT), tokens_per_s=10)]), clock=clock)

    async def first_and_last() -> tuple[float, float]:
        times = []
        async with client.messages.stream(model=MODEL, max_tokens=1000,
                                          messages=ASK) as events:  # type: ignore[arg-type]
            async for event in events:
                if event.type == "content_block_delta":
                    times.append(clock())
        return times[0], clock()

    first, last = asyncio.run(first_and_last())
    assert 0 < first < last


def test_a_pace_that_is_not_a_positive_number_is_refused() -> None:
    for bad in (0, -3.0):
        with pytest.raises(ValueError, match="tokens_per_s"):
            reply(say("hi"), tokens_per_s=bad)


def test_not_streamed_a_paced_reply_arrives_whole_when_all_of_it_is_written() -> None:
    _, streamed_end, _ = arrivals(reply(say(TEXT), delay_s=0.5, tokens_per_s=50))
    clock = FakeClock()
    client = fake_client(ScriptedModel([reply(say(TEXT), delay_s=0.5, tokens_per_s=50)]),
                         clock=clock)
    message = client.messages.create(model=MODEL, max_tokens=1000, messages=ASK)  # type: ignore[arg-type]
    assert message.content[0].text == TEXT  # type: ignore[union-attr]
    assert clock() == pytest.approx(streamed_end) and clock() > 1
