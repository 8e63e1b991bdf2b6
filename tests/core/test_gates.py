"""Each stop gate at its exact bound (N allowed, the next stops), instant via FakeClock."""

from __future__ import annotations

from typing import Any

import pytest

from looplab import (
    AgentRun,
    FakeClock,
    Limits,
    ScriptedModel,
    call,
    check_history,
    close_dangling,
    fake_client,
    overloaded,
    refuse,
    reply,
    run_agent,
    say,
    tool,
    truncate,
)
from looplab.fake import stop
from looplab.views.html import render_run_html

ran: list[str] = []


@tool
def run_tests(module: str) -> str:
    """Run a module's unit tests."""
    ran.append(module)
    return f"tests of {module}: 3 passed"


TOOLS = [run_tests]


@pytest.fixture(autouse=True)
def _clear() -> None:
    ran.clear()


def go(script: list[Any], limits: Limits, clock: FakeClock | None = None,
       max_retries: int = 2) -> tuple[Any, ScriptedModel]:
    model = ScriptedModel(script)
    client = fake_client(model, clock=clock, max_retries=max_retries)
    kwargs: dict[str, Any] = {} if clock is None else {"clock": clock}
    return run_agent(client, "task", tools=TOOLS, limits=limits, **kwargs), model


def calls(n: int, **reply_kwargs: Any) -> list[Any]:
    """n turns, each calling run_tests with a different module (no repeats)."""
    return [reply(call("run_tests", module=f"m{i}"), **reply_kwargs) for i in range(n)]


def usage(total_in: int, out: int = 0, created: int = 0, read: int = 0) -> dict[str, int]:
    return {"input_tokens": total_in - created - read, "output_tokens": out,
            "cache_creation_input_tokens": created, "cache_read_input_tokens": read}


def errors(messages: list[dict[str, Any]]) -> list[Any]:
    return [v for v in check_history(messages) if v.severity == "error"]


# -- max_turns ------------------------------------------------------------------------------


def test_max_turns_allows_n_requests_and_stops_before_the_next() -> None:
    result, model = go(calls(4), Limits(max_turns=3))
    assert len(model.requests) == 3 and model.remaining == 1
    assert str(result) == "stopped: max_turns (3 of 3 turns used)"
    assert result.turns[-1].gates is not None and result.turns[-1].gates.tripped == "max_turns"
    assert ran == ["m0", "m1", "m2"]  # the last allowed turn's tools still ran


def test_max_turns_lets_the_nth_turn_finish() -> None:
    result, _ = go([*calls(2), say("done")], Limits(max_turns=3))
    assert str(result) == "done"


def test_max_turns_zero_sends_nothing() -> None:
    result, model = go([say("never")], Limits(max_turns=0))
    assert str(result) == "stopped: max_turns (0 of 0 turns used)" and model.requests == []


# -- token_budget ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["plain", "cached"])
def test_token_budget_counts_input_cache_and_output_and_stops_at_the_bound(kind: str) -> None:
    # 100 tokens a turn, either all plain or mostly from the two cache fields
    each = usage(60, 40) if kind == "plain" else usage(60, 40, created=25, read=25)
    result, model = go(calls(5, usage=each), Limits(token_budget=300))
    assert len(model.requests) == 3
    assert str(result) == "stopped: token_budget (300 of 300 tokens used)"
    assert [t.gates.tokens_used for t in result.turns if t.gates] == [100, 200, 300]


def test_token_budget_one_more_token_allows_one_more_request() -> None:
    result, model = go(calls(5, usage=usage(60, 40)), Limits(token_budget=301))
    assert len(model.requests) == 4
    assert str(result) == "stopped: token_budget (400 of 301 tokens used)"


def test_article_numbers_cumulative_input_grows_with_the_square_of_the_turns() -> None:
    # S = 400 tokens of system + tools, Δ = 300 more per turn: request n sends S + (n-1)Δ
    script = [reply(call("run_tests", module=f"m{n}"), usage=usage(400 + (n - 1) * 300))
              for n in range(1, 20)]
    script.append(reply(say("done"), usage=usage(400 + 19 * 300)))
    result, _ = go(script, Limits(max_turns=20, token_budget=None))
    assert str(result) == "done"
    cumulative = [t.cumulative_input for t in result.turns]
    assert cumulative[9] == 17_500 and cumulative[19] == 65_000
    assert round(cumulative[19] / cumulative[9], 1) == 3.7


def test_preflight_count_tokens_stops_before_a_request_that_would_cross() -> None:
    script = [call("run_tests", module="login"), say("done")]
    dry, _ = go(script, Limits(token_budget=None))
    used_after_1 = dry.turns[0].total_input + dry.turns[0].output_tokens
    needed_2 = dry.turns[1].total_input

    tight = Limits(token_budget=used_after_1 + needed_2 - 1, count_tokens=True)
    result, model = go(script, tight)
    assert len(model.requests) == 1
    assert str(result) == (
        f"stopped: token_budget (pre-flight: the next request needs {needed_2:,} input "
        f"tokens; {used_after_1:,} used of {used_after_1 + needed_2 - 1:,})")
    # turn 1 left every gate open; the pre-flight closed one before turn 2: the viewer
    # shows it tripped on the last turn, from the run's status
    assert result.turns[-1].gates is not None and result.turns[-1].gates.tripped is None
    assert 'looplab-tripped" data-gate="tokens"' in render_run_html(result)

    exact, model = go(script, Limits(token_budget=used_after_1 + needed_2, count_tokens=True))
    assert str(exact) == "done" and len(model.requests) == 2

    # without the pre-flight the same budget lets the request go and stops only after it
    late, model = go(script, Limits(token_budget=used_after_1 + needed_2 - 1))
    assert len(model.requests) == 2 and str(late) == "done"


# -- timeout --------------------------------------------------------------------------------


def test_timeout_stops_before_the_request_at_the_bound() -> None:
    clock = FakeClock()
    result, model = go(calls(5, delay_s=10), Limits(timeout_s=30), clock)
    assert len(model.requests) == 3 and clock() == 30
    assert str(result) == "stopped: timeout (30 s of 30 s)"
    assert [t.elapsed_s for t in result.turns] == [10, 20, 30]


def test_timeout_just_above_the_bound_allows_one_more_request() -> None:
    result, model = go(calls(5, delay_s=10), Limits(timeout_s=30.5), FakeClock())
    assert len(model.requests) == 4 and result.status == "timeout"


def test_a_tool_that_takes_time_counts_towards_the_timeout() -> None:
    clock = FakeClock()

    @tool
    def slow(seconds: int) -> str:
        """Wait."""
        clock.advance(seconds)
        return "ok"

    model = ScriptedModel([call("slow", seconds=30), say("done")])
    result = run_agent(fake_client(model, clock=clock), "t", tools=[slow], clock=clock,
                       limits=Limits(timeout_s=30))
    assert str(result) == "stopped: timeout (30 s of 30 s)"
    assert result.turns[0].elapsed_s == 30  # the gate reads the run's clock


# -- repeated calls -------------------------------------------------------------------------

SAME = call("run_tests", module="login")
KEY = 'run_tests {"module":"login"}'


def test_repeat_stop_mode_reproduces_the_article() -> None:
    result, model = go([SAME, SAME, SAME, say("done")], Limits(on_repeat="stop"))
    assert len(model.requests) == 3 and ran == ["login", "login"]
    assert str(result) == f"stopped: repeated_call ({KEY}: identical call made 3 times)"
    # like the article, the third call is left unanswered: close_dangling answers it
    assert result.messages[-1]["role"] == "assistant"
    assert result.turns[-1].tool_calls[0].outcome == "pending"  # never answered
    assert errors(close_dangling(result.messages)) == []


def test_repeat_block_then_stop_blocks_the_nth_call_and_stops_on_the_next() -> None:
    result, model = go([SAME, SAME, SAME, SAME, say("done")], Limits())
    assert len(model.requests) == 4 and ran == ["login", "login"]
    blocked = result.messages[6]["content"][0]
    assert blocked["content"] == "not run: identical call made 3 times; change approach"
    assert blocked["is_error"] is True
    assert result.turns[2].tool_calls[0].outcome == "blocked"
    assert str(result) == f"stopped: repeated_call ({KEY}: identical call made 4 times)"
    # every call is answered: the history is valid as it is
    last = result.messages[-1]["content"][0]
    assert last["content"] == f"not run: {KEY}: identical call made 4 times; the run stopped"
    assert errors(result.messages) == []
    assert result.turns[-1].gates is not None and result.turns[-1].gates.repeats == 4


def test_repeat_block_then_the_model_changes_approach() -> None:
    result, _ = go([SAME, SAME, SAME, call("run_tests", module="signup"), say("done")], Limits())
    assert str(result) == "done" and ran == ["login", "login", "signup"]


def test_repeat_counts_identical_calls_in_one_parallel_turn() -> None:
    result, _ = go([[SAME, SAME], [SAME, call("run_tests", module="x")], say("done")], Limits())
    assert str(result) == "done" and ran == ["login", "login", "x"]
    assert [c.outcome for c in result.turns[1].tool_calls] == ["blocked", "ran"]


@pytest.mark.parametrize("window, blocked", [("cumulative", True), ("consecutive", False)])
def test_repeat_window_cumulative_vs_consecutive(window: Any, blocked: bool) -> None:
    other = call("run_tests", module="signup")
    result, _ = go([SAME, other, SAME, SAME, say("done")], Limits(repeat_window=window))
    assert str(result) == "done"
    assert (result.turns[3].tool_calls[0].outcome == "blocked") is blocked


def test_repeat_gate_off() -> None:
    result, _ = go([SAME] * 5 + [say("done")], Limits(max_repeats=None, max_turns=None))
    assert str(result) == "done" and ran == ["login"] * 5


def test_input_key_is_canonical_json() -> None:
    a = call("run_tests", {"module": "login", "k": [1, 2]})
    b = call("run_tests", {"k": [1, 2], "module": "login"})

    @tool
    def run_tests(module: str, k: list[int]) -> str:  # noqa: F811 (a second tool of the name)
        """Run."""
        return "ok"

    model = ScriptedModel([a, b, say("done")])
    result = run_agent(fake_client(model), "t", tools=[run_tests], limits=Limits(max_repeats=2))
    assert result.turns[1].tool_calls[0].outcome == "blocked"


# -- every early stop can be continued ------------------------------------------------------

STOPS = {
    "max_turns": (calls(2), Limits(max_turns=1)),
    "token_budget": (calls(2, usage=usage(50)), Limits(token_budget=50)),
    "timeout": (calls(2, delay_s=5), Limits(timeout_s=5)),
    "repeated_call_stop": ([SAME, SAME], Limits(max_repeats=2, on_repeat="stop")),
    "repeated_call_block": ([SAME, SAME, SAME], Limits(max_repeats=2)),
    "max_tokens": ([truncate(say("Running"), SAME)], Limits()),
    "refusal": ([refuse()], Limits()),
    "api_error": ([SAME, overloaded()], Limits()),
}


@pytest.mark.parametrize("name", list(STOPS))
def test_every_early_stop_leaves_a_history_that_can_be_continued(name: str) -> None:
    script, limits = STOPS[name]
    result, _ = go(script, limits, FakeClock(), max_retries=0)
    assert result.status == name.removesuffix("_stop").removesuffix("_block")
    assert errors(close_dangling(result.messages)) == []
    model = ScriptedModel([say("done")])
    again = run_agent(fake_client(model), result.messages, tools=TOOLS)
    assert str(again) == "done"
    assert errors(again.messages) == []


STOPPED_BY = {**STOPS, "done": ([say("done")], Limits()),
              "unknown_stop_reason": ([stop("a_reason_from_the_future", say("hm"))], Limits()),
              "stop_sequence": ([stop("stop_sequence", say("END"), stop_sequence="END")], Limits()),
              "max_turns_zero": ([], Limits(max_turns=0))}


@pytest.mark.parametrize("name", list(STOPPED_BY))
def test_a_stop_is_decided_once_and_the_run_and_its_result_agree(name: str) -> None:
    script, limits = STOPPED_BY[name]
    clock = FakeClock()
    run = AgentRun(fake_client(ScriptedModel(script), clock=clock, max_retries=0), "task",
                   tools=TOOLS, limits=limits, clock=clock)
    decided = []
    while run.result is None:
        assert run.stop is None  # no stop before the line that decides it
        run.step()
        decided.append(run.stop)
    assert run.stop is not None and run.stop.status == run.result.status
    assert run.result is run.result  # made once, not per access
    assert decided[:-1] == [None] * (len(decided) - 1)
    assert run.finished and str(run.result).split(" ")[0] in ("done", "stopped:")
