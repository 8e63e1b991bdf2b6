"""Where no thread can start (Pyodide, in the browser), a turn's tool calls run one after
another in the caller, through the real SDK and the fake; process tools are refused.
There the notebook's cell runs inside an event loop, and async tools run to their end
all the same."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import threading
import types
import warnings
from collections.abc import Coroutine, Iterator
from typing import Any

import pytest

import looplab
from looplab import ScriptedModel, call, say
from looplab.running import inline, process_calls
from looplab.running.inline import TimeoutsNotEnforcedWarning


@pytest.fixture
def no_threads(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    def no_processes() -> None:
        raise OSError("no processes here")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    monkeypatch.setattr(process_calls, "_context", no_processes)
    monkeypatch.setattr(inline, "_told", False)  # a fresh kernel: not said yet
    yield


def run(tools: list[looplab.Tool]) -> looplab.RunResult:
    """Two calls, each with a timeout (a thread would enforce it)."""
    model = ScriptedModel([[call("a", n=1), call("b", n=2)], say("done")])
    return looplab.run_agent(looplab.fake_client(model), "go", tools=tools,
                             limits=looplab.Limits(tool_timeout_s=5))


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

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("default")  # as a notebook shows warnings: once per line
        result = run([a, b])
        model = ScriptedModel([[call("a", n=1), call("b", n=2)], say("done")])
        again = looplab.run_agent(looplab.fake_client(model), "go", tools=[a, b],
                                  limits=looplab.Limits(tool_timeout_s=5))  # other line
    (warned,) = said  # once in all, at the line that started the first run
    assert (warned.category, warned.filename) == (TimeoutsNotEnforcedWarning, __file__)
    assert "timeouts are not enforced" in str(warned.message)
    assert result.status == again.status == "done"
    assert [(c.name, c.result, c.is_error) for c in result.turns[0].tool_calls] == [
        ("a", "a1", False), ("b", "b2", False)]
    assert order == [("a", True), ("b", True)] * 2


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
    assert "none could be started: OSError: no processes here" in first.result
    assert (second.result, second.is_error) == ("ran", False)


@looplab.tool
async def a(n: int) -> str:
    """A: waits on the event loop before it answers."""
    await asyncio.sleep(0.01)
    return f"a{n}"


@looplab.tool
async def b(n: int) -> str:
    """B."""
    await asyncio.sleep(0)
    return f"b{n}"


def test_async_tools_run_inside_the_callers_running_event_loop(no_threads: None) -> None:
    async def cell() -> looplab.RunResult:  # as the browser's kernel runs a cell
        outer = asyncio.get_running_loop()
        result = run([a, b])
        assert asyncio.get_running_loop() is outer
        return result

    with pytest.warns(TimeoutsNotEnforcedWarning):
        result = asyncio.run(cell())
    assert [(c.result, c.is_error) for c in result.turns[0].tool_calls] == [
        ("a1", False), ("b2", False)]


def test_in_pyodide_its_run_sync_waits_for_an_async_tool(
    no_threads: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    waited = []

    def run_sync(coroutine: Coroutine[Any, Any, Any]) -> Any:  # as Pyodide's, with JSPI
        waited.append(coroutine.__qualname__)
        try:
            while True:
                coroutine.send(None)  # sleep(0) yields once; nothing else is awaited here
        except StopIteration as end:
            return end.value

    ffi = types.SimpleNamespace(run_sync=run_sync, can_run_sync=lambda: True)
    monkeypatch.setitem(sys.modules, "pyodide", types.ModuleType("pyodide"))
    monkeypatch.setitem(sys.modules, "pyodide.ffi", ffi)

    async def cell() -> looplab.RunResult:
        return run([dataclasses.replace(b, name="a"), b])

    with pytest.warns(TimeoutsNotEnforcedWarning):
        result = asyncio.run(cell())
    assert [(c.result, c.is_error) for c in result.turns[0].tool_calls] == [
        ("b1", False), ("b2", False)]
    assert waited == ["b", "b"]
