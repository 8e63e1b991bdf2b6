"""Where no thread can start (Pyodide, in the browser), a turn's tool calls run one after
another in the caller, through the real SDK and the fake; process tools are refused."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

import looplab
from looplab import ScriptedModel, call, say
from looplab.running.calls import TimeoutsNotEnforcedWarning
from looplab.running.threads import _idle


@pytest.fixture
def no_threads(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    saved = list(_idle)
    _idle.clear()  # no pool thread left from earlier tests: each call needs a new one
    monkeypatch.setattr(threading.Thread, "start", refuse)
    yield
    _idle.extend(saved)


def run(tools: list[looplab.Tool]) -> looplab.RunResult:
    model = ScriptedModel([[call("a", n=1), call("b", n=2)], say("done")])
    return looplab.run_agent(looplab.fake_client(model), "go", tools=tools)


def test_calls_run_in_the_caller_one_after_another(no_threads: None) -> None:
    order = []

    @looplab.tool
    def a(n: int) -> str:
        """A."""
        order.append(("a", threading.current_thread() is threading.main_thread()))
        return f"a{n}"

    @looplab.tool
    async def b(n: int) -> str:
        """B."""
        order.append(("b", threading.current_thread() is threading.main_thread()))
        return f"b{n}"

    with pytest.warns(TimeoutsNotEnforcedWarning, match="timeouts are not enforced"):
        result = run([a, b])
    assert result.status == "done"
    assert [(c.name, c.result, c.is_error) for c in result.turns[0].tool_calls] == [
        ("a", "a1", False), ("b", "b2", False)]
    assert order == [("a", True), ("b", True)]


def test_a_process_tool_is_refused_with_a_reason(no_threads: None) -> None:
    @looplab.tool(isolate="process")
    def a(n: int) -> str:
        """A."""
        return "never"

    @looplab.tool
    def b(n: int) -> str:
        """B."""
        return "ran"

    with pytest.warns(TimeoutsNotEnforcedWarning):
        result = run([a, b])
    first, second = result.turns[0].tool_calls
    assert first.is_error and first.outcome == "not_run"
    assert "neither threads nor processes" in first.result
    assert (second.result, second.is_error) == ("ran", False)
