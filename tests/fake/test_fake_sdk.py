"""The fake behind the SDK's other doors: streaming, async, the tool runner, clocks."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import pytest
from anthropic import beta_tool

from looplab import (
    MODEL,
    FakeClock,
    FunctionModel,
    ScriptedModel,
    call,
    fake_client,
    overloaded,
    refuse,
    reply,
    say,
    think,
)
from looplab.fake import Request, ScriptError, async_fake_client

TOOL = {
    "name": "get_weather",
    "description": "Get the weather for a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
HI = [{"role": "user", "content": "Weather in Paris?"}]


def test_stream_assembles_the_same_message_as_create() -> None:
    step = [think("Check the weather tool."), say("Let me look that up for you now."),
            call("get_weather", city="巴黎")]  # fmt: skip
    plain = fake_client(ScriptedModel([step]), _strict_response_validation=True)
    expected = plain.messages.create(model=MODEL, max_tokens=99, messages=HI, tools=[TOOL])
    client = fake_client(ScriptedModel([step]), _strict_response_validation=True)
    with client.messages.stream(model=MODEL, max_tokens=99, messages=HI, tools=[TOOL]) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_message()
    assert final.model_dump() == expected.model_dump()
    assert kinds.count("text") == 2  # the text came in more than one delta
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"


def test_stream_carries_stop_details_of_a_refusal() -> None:
    client = fake_client(ScriptedModel([refuse(text="No.")]), _strict_response_validation=True)
    with client.messages.stream(model=MODEL, max_tokens=9, messages=HI) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "refusal"
    assert final.stop_details is not None and final.stop_details.category == "cyber"


def test_async_client_runs_the_same_script() -> None:
    model = ScriptedModel([overloaded(), say("Sunny.")])

    async def ask() -> anthropic.types.Message:
        client = async_fake_client(model, _strict_response_validation=True)
        return await client.messages.create(model=MODEL, max_tokens=9, messages=HI)

    assert asyncio.run(ask()).content[0].text == "Sunny."  # type: ignore[union-attr]
    assert len(model.requests) == 2


@beta_tool
def get_weather(city: str) -> str:
    """Get the weather for a city.

    Args:
        city: City name
    """
    return f"Sunny in {city}"


def test_sdk_tool_runner_completes_a_two_turn_task() -> None:
    model = ScriptedModel([call("get_weather", city="Paris"), say("It is sunny in Paris.")])
    client = fake_client(model, _strict_response_validation=True)
    runner = client.beta.messages.tool_runner(
        model=MODEL, max_tokens=500, tools=[get_weather], messages=HI
    )
    final = runner.until_done()
    assert final.stop_reason == "end_turn"
    assert final.content[0].text == "It is sunny in Paris."  # type: ignore[union-attr]
    model.assert_complete()
    # the threaded first attempt is refused, then the runner sends full histories
    assert ["thread" in body for body in model.requests] == [True, False, False]
    last = model.requests[-1]["messages"]
    assert last[2]["content"][0]["content"] == "Sunny in Paris"
    assert last[2]["content"][0]["tool_use_id"] == last[1]["content"][0]["id"]


def test_delay_advances_the_given_clock_only() -> None:
    clock = FakeClock(start=100.0)
    model = ScriptedModel([overloaded(delay_s=2.0), reply(say("late"), delay_s=30.0)])
    client = fake_client(model, clock=clock)
    client.messages.create(model=MODEL, max_tokens=9, messages=HI)
    assert clock() == 132.0


def test_fake_clock() -> None:
    clock = FakeClock()
    clock.advance(1.5)
    clock.sleep(0.5)
    assert clock() == 2.0
    assert repr(clock) == "FakeClock(now=2.0)"
    with pytest.raises(ValueError, match="backwards"):
        clock.advance(-1)


def test_function_model_reacts_to_tool_results() -> None:
    seen: list[Request] = []

    def weather_model(request: Request) -> Any:
        seen.append(request)
        if request.turn == 0:
            return [call("get_weather", city="Paris"), call("get_weather", city="Oslo")]
        results = request.last_results_by_name()
        return say(
            f"Got {len(request.last_tool_results())} results; last: {results['get_weather']}"
        )

    model = FunctionModel(weather_model)
    client = fake_client(model, _strict_response_validation=True)
    messages: list[Any] = list(HI)
    first = client.messages.create(model=MODEL, max_tokens=99, messages=messages, tools=[TOOL])
    messages.append({"role": "assistant", "content": first.content})
    messages.append(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": b.id, "content": f"sun in {b.input['city']}"}
                for b in first.content
                if b.type == "tool_use"
            ]
            + [{"type": "text", "text": "thanks"}],
        }
    )
    second = client.messages.create(model=MODEL, max_tokens=99, messages=messages, tools=[TOOL])
    assert second.content[0].text == "Got 2 results; last: sun in Oslo"  # type: ignore[union-attr]
    request = seen[-1]
    assert (request.number, request.turn, request.model, request.max_tokens) == (2, 1, MODEL, 99)
    assert request.tool_names == ["get_weather"] and request.system is None
    assert request.last_user_text() == "thanks"
    assert repr(model) == "FunctionModel(weather_model)"


def test_a_failing_model_function_is_not_a_connection_error() -> None:
    def broken(request: Request) -> Any:
        return {"results": request.last_tool_results()}["missing"]

    model = FunctionModel(broken)
    with pytest.raises(ScriptError) as caught:
        fake_client(model).messages.create(model=MODEL, max_tokens=9, messages=HI)
    assert str(caught.value) == (
        "the fake model raised KeyError('missing') while answering request 1; "
        "see the traceback above."
    )
    assert isinstance(caught.value.__cause__, KeyError)
    assert len(model.requests) == 1  # not retried


def test_a_model_function_must_return_a_step() -> None:
    model = FunctionModel(lambda request: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(ScriptError, match="NoneType"):
        fake_client(model).messages.create(model=MODEL, max_tokens=9, messages=HI)


def test_delay_without_a_clock_really_sleeps(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr("looplab.fake.server.time.sleep", slept.append)
    client = fake_client(ScriptedModel([reply(say("late"), delay_s=0.25)]))
    client.messages.create(model=MODEL, max_tokens=9, messages=HI)
    assert slept == [0.25]
