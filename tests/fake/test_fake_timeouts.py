"""A reply slower than the request's timeout times out through the SDK's own retries, and
async delays never block the event loop."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import pytest

import looplab
from looplab import MODEL, FakeClock, ScriptedModel, async_fake_client, fake_client, reply, say
from looplab.fake import FunctionModel, Request

HI = [{"role": "user", "content": "hi"}]
ASK: dict[str, Any] = {"model": MODEL, "max_tokens": 100, "messages": HI}


def test_a_delay_over_the_client_timeout_raises_after_the_retries() -> None:
    clock = FakeClock()
    model = ScriptedModel([reply(say("late"), delay_s=30.5)])
    client = fake_client(model, clock=clock, timeout=30.0)
    with pytest.raises(anthropic.APITimeoutError):
        client.messages.create(**ASK)
    assert len(model.requests) == 3  # the first attempt and the SDK's two retries
    assert model.position == 1  # every attempt replayed the same slow step
    assert clock() == 90.0  # each attempt waited the full timeout


def test_a_delay_equal_to_the_timeout_is_answered() -> None:
    clock = FakeClock()
    client = fake_client(ScriptedModel([reply(say("just in time"), delay_s=30.0)]), clock=clock)
    response = client.with_options(timeout=30.0).messages.create(**ASK)
    assert response.content[0].text == "just in time"  # type: ignore[union-attr]
    assert clock() == 30.0


def test_with_options_timeout_applies_to_one_request() -> None:
    clock = FakeClock()
    model = ScriptedModel([reply(say("slow"), delay_s=6), reply(say("slow"), delay_s=6)])
    client = fake_client(model, clock=clock)
    with pytest.raises(anthropic.APITimeoutError):
        client.with_options(timeout=5.0, max_retries=0).messages.create(**ASK)
    assert clock() == 5.0
    assert client.messages.create(**ASK).content[0].text == "slow"  # type: ignore[union-attr]
    assert clock() == 11.0  # the default timeout (600 s) lets the second reply arrive


def test_a_new_request_after_a_timeout_gets_the_next_step() -> None:
    model = ScriptedModel([reply(say("slow"), delay_s=9), say("fast")])
    client = fake_client(model, clock=FakeClock(), timeout=5.0, max_retries=0)
    with pytest.raises(anthropic.APITimeoutError):
        client.messages.create(**ASK)
    assert client.messages.create(**ASK).content[0].text == "fast"  # type: ignore[union-attr]


def test_a_stream_times_out_too() -> None:
    client = fake_client(
        ScriptedModel([reply(say("slow"), delay_s=9)]), clock=FakeClock(), max_retries=0
    )
    with pytest.raises(anthropic.APITimeoutError):
        with client.with_options(timeout=5.0).messages.stream(**ASK) as stream:
            stream.get_final_message()


def test_with_a_clock_the_fake_never_sleeps(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr("time.sleep", slept.append)
    clock = FakeClock()
    client = fake_client(
        ScriptedModel([reply(say("late"), delay_s=99)]), clock=clock, timeout=3, max_retries=0
    )
    with pytest.raises(anthropic.APITimeoutError):
        client.messages.create(**ASK)
    assert slept == [] and clock() == 3.0


def test_without_a_clock_the_timeout_is_really_waited(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr("time.sleep", slept.append)
    client = fake_client(ScriptedModel([reply(say("late"), delay_s=0.5)]), max_retries=0)
    with pytest.raises(anthropic.APITimeoutError):
        client.with_options(timeout=0.2).messages.create(**ASK)
    assert slept == [0.2]


def test_the_loop_reports_a_timed_out_request_as_an_api_error() -> None:
    clock = FakeClock()
    model = ScriptedModel([reply(say("late"), delay_s=20)])
    client = fake_client(model, clock=clock, timeout=10.0, max_retries=1)
    result = looplab.run_agent(client, "Say hi.", tools=[], clock=clock)
    assert result.status == "api_error"
    assert isinstance(result.error, anthropic.APITimeoutError)
    assert clock() == 20.0


# -- async -------------------------------------------------------------------------------


def by_text(request: Request) -> Any:
    """Answers "slow" after 0.2 s and "fast" at once."""
    text = request.last_user_text()
    return reply(say(text), delay_s=0.2 if text == "slow" else 0.0)


def test_async_delays_overlap_instead_of_blocking_the_event_loop() -> None:
    client = async_fake_client(FunctionModel(by_text))
    finished: list[str] = []

    async def ask(text: str) -> None:
        await client.messages.create(**{**ASK, "messages": [{"role": "user", "content": text}]})
        finished.append(text)

    async def both() -> None:
        await asyncio.gather(ask("slow"), ask("fast"))  # "slow" reaches the fake first

    asyncio.run(both())
    assert finished == ["fast", "slow"]  # a blocking sleep would have finished "slow" first


def test_async_delays_advance_the_clock() -> None:
    clock = FakeClock()
    client = async_fake_client(ScriptedModel([reply(say("late"), delay_s=42)]), clock=clock)
    asyncio.run(client.messages.create(**ASK))
    assert clock() == 42.0


def test_async_timeouts_raise_after_the_retries() -> None:
    clock = FakeClock()
    model = ScriptedModel([reply(say("late"), delay_s=8)])
    client = async_fake_client(model, clock=clock, timeout=2.0, max_retries=1)
    with pytest.raises(anthropic.APITimeoutError):
        asyncio.run(client.messages.create(**ASK))
    assert len(model.requests) == 2 and clock() == 4.0


def test_on_a_fake_clock_the_sdks_retry_waits_take_no_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slept: list[float] = []
    monkeypatch.setattr(anthropic._base_client.time, "sleep", slept.append)
    clock = FakeClock()
    client = fake_client(ScriptedModel([reply(say("late"), delay_s=50)] * 2), clock=clock,
                         timeout=10.0)
    assert type(client) is anthropic.Anthropic  # still the SDK's own client
    for attempt in (client, client.with_options(max_retries=2)):
        with pytest.raises(anthropic.APITimeoutError):
            attempt.messages.create(**ASK)
    assert slept == []  # the SDK's backoff between attempts, skipped, the copy's too
    assert clock() == 60.0  # six attempts of 10 s each; nothing for the waits

    real = fake_client(ScriptedModel([reply(say("late"), delay_s=50)]), timeout=0.01,
                       max_retries=1)
    with pytest.raises(anthropic.APITimeoutError):
        real.messages.create(**ASK)
    backoffs = [s for s in slept if s != 0.01]  # the rest: each attempt waiting its 0.01 s
    assert len(backoffs) == 1  # without a clock, the SDK waits between attempts as always


@pytest.mark.parametrize("make", [fake_client, async_fake_client])
def test_an_sdk_without_the_retry_wait_hook_is_refused_not_patched_in_vain(
    monkeypatch: pytest.MonkeyPatch, make: Any,
) -> None:
    # the clock's promise rests on the SDK's private `_sleep_for_retry`: a version that
    # renames it must fail loudly at setup, not sleep in real time between retries
    for cls in (anthropic.Anthropic, anthropic.AsyncAnthropic):
        for owner in cls.__mro__:
            if "_sleep_for_retry" in vars(owner):
                monkeypatch.delattr(owner, "_sleep_for_retry")
    with pytest.raises(RuntimeError, match="has no _sleep_for_retry.*constraints.txt"):
        make(ScriptedModel([say("x")]), clock=FakeClock())
    make(ScriptedModel([say("x")]))  # without a clock, nothing to patch
