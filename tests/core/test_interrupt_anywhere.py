"""Ctrl-C at any line of a run leaves a valid history, a run whose `stop` and `result` agree,
and no thread or process behind: a `KeyboardInterrupt` is raised, once, at every line the
loop's own code executes in a 3-turn run with parallel calls (`sys.settrace`)."""

from __future__ import annotations

import os
import sys
import threading
from types import FrameType
from typing import Any

import psutil
import pytest

import looplab
from looplab import AgentRun, Limits, ScriptedModel, call, check_history, fake_client, say, tool
from looplab.history.dangling import close_dangling

pytestmark = pytest.mark.slow  # a few hundred runs

LOOP_CODE = tuple(os.path.join(os.path.dirname(looplab.__file__), part)
                  for part in ("core", "running", "history", "i18n.py", "errors.py"))


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


@tool(timeout_s=5)
def run_tests(module: str) -> str:
    """Run a module's tests (in a thread of its own: it has a timeout)."""
    return f"1 failed, 2 passed ({module})"


def script() -> ScriptedModel:
    return ScriptedModel([
        [say("Running the tests."), call("run_tests", module="login")],
        [say("Reading both."), call("read_file", path="login.py"),
         call("read_file", path="logs/login.log")],
        say("test_login_lockout fails."),
    ])


class InterruptAt:
    """A trace function that raises KeyboardInterrupt at the n-th line of the loop's code."""

    def __init__(self, n: int) -> None:
        self.n, self.seen, self.fired = n, 0, False

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Any:
        if not frame.f_code.co_filename.startswith(LOOP_CODE):
            return None
        return self.line

    def line(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line" and not self.fired:
            self.seen += 1
            if self.seen == self.n:
                self.fired = True
                raise KeyboardInterrupt
        return self.line


def run_interrupted(n: int) -> tuple[AgentRun, InterruptAt]:
    """Ctrl-C reaches the main thread only, where the loop runs."""
    run = AgentRun(fake_client(script()), "Run the login tests.",
                   tools=[read_file, run_tests], limits=Limits(max_repeats=None))
    trace = InterruptAt(n)
    sys.settrace(trace)
    try:
        while run.result is None:
            try:
                run.step()
            except KeyboardInterrupt:  # at a line of step() outside its `try`: the turn
                # had not begun or had ended, so the history is as valid as before
                assert check_history(close_dangling(run.messages)) == []
    finally:
        sys.settrace(None)
    return run, trace


def lines_of_a_whole_run() -> int:
    run, trace = run_interrupted(10**9)
    assert str(run.result) == "done"
    return trace.seen


def test_ctrl_c_at_every_line_leaves_a_valid_run_and_nothing_behind() -> None:
    before_threads = set(threading.enumerate())
    me = psutil.Process()
    before_children = {p.pid for p in me.children(recursive=True)}
    lines_of_a_whole_run()  # once to warm up: the first run loads what later runs reuse
    total = lines_of_a_whole_run()
    assert total > 100  # the trace sees the loop's code
    statuses = set()
    for n in range(1, total + 1):
        run, trace = run_interrupted(n)
        if not trace.fired:  # this run took fewer lines (a thread answered sooner)
            assert trace.seen < n and str(run.result) == "done"
            continue
        result = run.result
        assert result is not None and run.stop is not None
        assert run.stop.status == result.status, n
        assert result.messages is run.messages
        statuses.add(result.status)
        # every call is answered, or closing the history makes it valid
        assert check_history(close_dangling(result.messages)) == [], n
        if result.status == "interrupted":
            assert check_history(result.messages) == [], n
        for t in result.turns:
            for c in t.tool_calls:
                assert c.outcome in ("pending", "ran", "not_run", "interrupted"), n
    assert "interrupted" in statuses
    end_threads = [t for t in threading.enumerate() if t not in before_threads and t.is_alive()]
    for t in end_threads:
        t.join(5)
    assert [t for t in end_threads if t.is_alive()] == []
    assert {p.pid for p in me.children(recursive=True)} - before_children == set()
