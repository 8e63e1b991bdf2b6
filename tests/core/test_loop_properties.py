"""Random scripts against the loop: whatever the model and the tools do, the loop never
raises, the history stays sendable after every turn, and the status is a documented one."""

from __future__ import annotations

import threading
from typing import Any

import anthropic
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from looplab import (
    STATUSES,
    STOP_REASONS,
    AgentRun,
    FakeClock,
    Limits,
    ToolError,
    check_history,
    close_dangling,
    run_agent,
    tool,
)
from looplab.fake import (
    FunctionModel,
    Request,
    api_error,
    call,
    fake_client,
    overloaded,
    pause,
    rate_limited,
    refuse,
    reply,
    say,
    stop,
    think,
    truncate,
)

hung = [threading.Event()]  # set after each example, so hung tool threads end


@tool
def ok(x: int) -> str:
    """Answer."""
    return f"ok {x}"


@tool
def boom(x: int) -> str:
    """Raise."""
    raise ValueError(f"boom {x}")


@tool
def refuse_politely(x: int) -> str:
    """Raise a ToolError."""
    raise ToolError(f"cannot do {x}")


@tool
def hang(x: int) -> str:
    """Overrun the tool timeout."""
    hung[0].wait(10)
    return "late"


WEB = {"type": "web_search_20250305", "name": "web_search"}
TOOLS: list[Any] = [ok, boom, refuse_politely, hang, WEB]  # wrapped once: it is slow
NAMES = ["ok", "boom", "refuse_politely", "hang"]

texts = st.text(alphabet="abc xyz", min_size=1, max_size=12).map(lambda t: t.strip() or "t")
calls = st.builds(
    lambda name, x: call(name, x=x),
    st.sampled_from(NAMES),
    st.sampled_from([0, 0, 0, 1, "not an int"]),  # repeats are common; bad input fails
)
usages = st.none() | st.fixed_dictionaries({
    "input_tokens": st.integers(0, 500), "output_tokens": st.integers(0, 200),
    "cache_creation_input_tokens": st.integers(0, 100),
    "cache_read_input_tokens": st.integers(0, 100),
})
delays = st.sampled_from([0.0, 0.0, 5.0, 40.0])


@st.composite
def turns(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["text", "calls", "calls", "calls", "calls", "think", "stop",
                                 "truncate", "refuse", "pause", "fault"]))
    usage, delay = draw(usages), draw(delays)
    if kind == "text":
        return reply(say(draw(texts)), usage=usage, delay_s=delay)
    if kind == "calls":
        blocks = draw(st.lists(calls, min_size=1, max_size=3))
        lead = [say(draw(texts))] if draw(st.booleans()) else []
        return reply(*lead, *blocks, usage=usage, delay_s=delay)
    if kind == "think":
        return reply(think(draw(texts)), draw(calls), usage=usage, delay_s=delay)
    if kind == "stop":
        reason = draw(st.sampled_from([*STOP_REASONS, "some_future_reason"]))
        blocks = [draw(calls)] if reason == "tool_use" else [say(draw(texts))]
        return stop(reason, *blocks)
    if kind == "truncate":
        return truncate(say(draw(texts)), draw(calls))
    if kind == "refuse":
        return refuse(text=draw(st.none() | texts))
    if kind == "pause":
        return pause(say(draw(texts)))
    return draw(st.sampled_from([overloaded(), rate_limited(), api_error(500),
                                 api_error(401, "authentication_error", "invalid x-api-key")]))


limits = st.builds(
    Limits,
    token_budget=st.none() | st.integers(0, 3000),
    timeout_s=st.none() | st.sampled_from([0, 30, 60]),
    max_repeats=st.none() | st.integers(1, 3),
    repeat_window=st.sampled_from(["cumulative", "consecutive"]),
    on_repeat=st.sampled_from(["block_then_stop", "stop"]),
    tool_timeout_s=st.just(0.005),
    count_tokens=st.booleans(),
)


class Script:
    """One fake model for every example (building a client each time is slow)."""

    def __init__(self) -> None:
        self.steps: list[Any] = []

    def __call__(self, request: Request) -> Any:
        return self.steps.pop(0)


script = Script()
clock = FakeClock()
client = fake_client(FunctionModel(script), clock=clock, max_retries=0)


def errors(messages: list[dict[str, Any]]) -> list[Any]:
    return [v for v in check_history(messages) if v.severity == "error"]


RUNS = {"steps": st.lists(turns(), min_size=1, max_size=8), "limits": limits, "data": st.data()}


@pytest.mark.slow  # seconds: 500 runs
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**RUNS)
def test_the_loop_never_raises_and_the_history_stays_valid(
    steps: list[Any], limits: Limits, data: st.DataObject
) -> None:
    loop_property(steps, limits, data)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**RUNS)
def test_the_loop_never_raises_in_a_short_run_of_the_same_property(
    steps: list[Any], limits: Limits, data: st.DataObject
) -> None:
    """The property above on 25 runs, so that `make test` tries it too."""
    loop_property(steps, limits, data)


def loop_property(steps: list[Any], limits: Limits, data: st.DataObject) -> None:
    """Any script, any limits: the loop returns a result, every request it sends is valid,
    and the run can be continued."""
    # max_turns never exceeds the script, so the fake never runs out of steps
    max_turns = data.draw(st.integers(0, len(steps)) | st.just(len(steps)))
    limits = Limits(**{**limits.__dict__, "max_turns": max_turns})
    script.steps = list(steps)
    try:
        run = AgentRun(client, "task", tools=TOOLS, limits=limits, clock=clock)
        while not run.finished:
            turn = run.step()
            if not run.finished:  # about to be sent as it is
                assert errors(run.messages) == []
            if turn is not None and turn.content:
                assert turn.content in [m["content"] for m in run.messages]
        result = run.result
        assert result is not None and result.status in STATUSES
        event(result.status)
        assert str(result) == "done" or str(result).startswith(f"stopped: {result.status}")
        assert not isinstance(result.error, anthropic.BadRequestError), result.error
        assert errors(close_dangling(result.messages)) == []
        assert len(result.turns) <= max_turns
        for t in result.turns:
            assert all(c.result is not None or c.outcome == "pending" for c in t.tool_calls)

        # and the run can always be continued
        script.steps = [say("the end")]
        again = run_agent(client, result.messages, tools=TOOLS, clock=clock)
        assert str(again) == "done" and errors(again.messages) == []
    finally:
        hung[0].set()
        hung[0] = threading.Event()
