"""What a timeout can do about a hung tool: a process tool is killed with everything it
started; a thread tool's call runs on, and hung ones are capped, and the run says so."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from liveness import wait_gone

import looplab.core.tools
import looplab.running.process_calls
import looplab.running.processes
from looplab import Limits, ScriptedModel, call, check_history, fake_client, run_agent, say, tool
from looplab.core.result import ToolCall
from looplab.core.tools import answer_calls
from looplab.running.processes import marked_pids
from looplab.running.threads import MAX_HUNG_THREADS, HungThreadsWarning, hung_threads

release = threading.Event()


@pytest.fixture(autouse=True)
def _release_hung_tools() -> Iterator[None]:
    """Each test's hung tools are released when it ends, and their threads then end."""
    release.clear()
    yield
    release.set()
    end = time.monotonic() + 10
    while tool_threads() and time.monotonic() < end:
        time.sleep(0.01)
    assert not tool_threads()


def tool_threads() -> int:
    return sum(t.name == "looplab tool hang" for t in threading.enumerate())


class Sampler:
    """The most tool threads alive at once, sampled every millisecond while in use."""

    def __init__(self) -> None:
        self.most = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)

    def _run(self) -> None:
        while not self._stop.wait(0.001):
            self.most = max(self.most, tool_threads())

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@tool(timeout_s=0.05)
def hang(n: int) -> str:
    """Hang until released."""
    release.wait(60)
    return "late"


def test_more_hung_thread_tools_than_the_cap_are_refused_with_a_warning() -> None:
    extra = 2
    model = ScriptedModel([call("hang", n=i) for i in range(MAX_HUNG_THREADS + extra)]
                          + [say("Giving up.")])
    with Sampler() as sampler, pytest.warns(HungThreadsWarning) as warned:
        result = run_agent(fake_client(model), "Go.", tools=[hang],
                           limits=Limits(max_repeats=None, max_turns=None))
    calls = [t.tool_calls[0] for t in result.turns[:-1]]
    assert [c.abandoned for c in calls] == [True] * MAX_HUNG_THREADS + [False] * extra
    refusal = (f"not run: {MAX_HUNG_THREADS} earlier tool calls that timed out are still "
               f"running in threads (limit {MAX_HUNG_THREADS}). Make the hung tool "
               "return, or declare it with @tool(isolate=\"process\") so a timeout kills it.")
    assert [(c.result, c.outcome) for c in calls[-extra:]] == [(refusal, "not_run")] * extra
    assert [str(w.message) for w in warned] == [refusal] * extra
    assert sampler.most == MAX_HUNG_THREADS and hung_threads() == MAX_HUNG_THREADS
    assert str(result) == "done" and check_history(result.messages) == []


def test_the_cap_counts_only_threads_still_running() -> None:
    model = ScriptedModel([[call("hang", n=i) for i in range(MAX_HUNG_THREADS)], say("ok")])
    result = run_agent(fake_client(model), "Go.", tools=[hang])
    assert sum(c.abandoned for c in result.turns[0].tool_calls) == MAX_HUNG_THREADS
    assert hung_threads() == MAX_HUNG_THREADS
    release.set()
    end = time.monotonic() + 10
    while hung_threads() and time.monotonic() < end:
        time.sleep(0.01)
    assert hung_threads() == 0  # nothing held once they end: the next call runs
    release.clear()
    model = ScriptedModel([call("hang", n=99), say("ok")])
    again = run_agent(fake_client(model), "Go.", tools=[hang])
    assert again.turns[0].tool_calls[0].outcome == "ran"


def test_calls_of_a_turn_run_one_after_another_in_call_order() -> None:
    order: list[str] = []

    @tool
    def note(n: int) -> str:
        """Note the call."""
        order.append(f"start {n}")
        time.sleep(0.005)
        order.append(f"end {n}")
        return f"ok {n}"

    n = 12
    model = ScriptedModel([[call("note", n=i) for i in range(n)], say("All read.")])
    result = run_agent(fake_client(model), "Go.", tools=[note])
    assert [c.result for c in result.turns[0].tool_calls] == [f"ok {i}" for i in range(n)]
    assert order == [f"{e} {i}" for i in range(n) for e in ("start", "end")]


SPAWN = """\
import subprocess, sys
daemon = subprocess.Popen(["sleep", "600"], start_new_session=True,  # leaves the group
                          stdout=subprocess.DEVNULL)
print(daemon.pid)
"""


def python_daemon() -> int:
    """Double-fork a Python process that never calls exec and leaves the session."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(write, str(os.getpid()).encode())
            time.sleep(600)
        os._exit(0)
    return int(os.read(read, 20))


@pytest.mark.skipif(sys.platform != "linux", reason="daemons stay below a subreaper on Linux")
def test_a_timed_out_process_tool_is_killed_with_every_process_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(looplab.running.processes, "new_mark", lambda: "isolation0test0mark")
    pids = tmp_path / "pids"

    @tool(isolate="process", timeout_s=1)
    def spawn(n: int) -> str:
        """Start processes, then hang."""
        child = subprocess.Popen(["sleep", "600"])
        daemon = subprocess.run([sys.executable, "-c", SPAWN], stdout=subprocess.PIPE, text=True)
        pids.write_text(f"{os.getpid()} {child.pid} {daemon.stdout.strip()} {python_daemon()}")
        time.sleep(600)
        return "late"

    model = ScriptedModel([call("spawn", n=1), say("It hung.")])
    result = run_agent(fake_client(model), "Go.", tools=[spawn])
    [c] = result.turns[0].tool_calls
    assert (c.result, c.is_error, c.abandoned) == (
        "timed out after 1 s; the tool's process and every process it started were killed. "
        "Try a smaller or different call.", True, False)
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 4 and wait_gone(started) == []
    assert marked_pids("isolation0test0mark") == []
    assert str(result) == "done"


@pytest.mark.skipif(sys.platform != "linux", reason="daemons stay below a subreaper on Linux")
def test_daemons_of_a_process_tool_that_returned_are_killed_too() -> None:
    @tool(isolate="process")
    def start_daemon(n: int) -> str:
        """Leave a daemon behind and return."""
        return str(python_daemon())

    model = ScriptedModel([call("start_daemon", n=1), say("Done.")])
    result = run_agent(fake_client(model), "Go.", tools=[start_daemon])
    [c] = result.turns[0].tool_calls
    assert not c.is_error and wait_gone([int(c.result)]) == []


def test_checking_the_inputs_does_not_eat_into_the_tools_time(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    real = looplab.core.tools.why_not_run

    def slow_refusal(*args: object) -> str | None:
        time.sleep(0.3)  # like a first validation that imports jsonschema on a busy machine
        return real(*args)  # type: ignore[arg-type]

    @tool(timeout_s=0.2)
    def quick(n: int) -> str:
        """Answer at once."""
        return "ok"

    monkeypatch.setattr(looplab.core.tools, "why_not_run", slow_refusal)
    calls = [ToolCall(f"toolu_{i}", "quick", {"n": i}) for i in range(2)]
    answer_calls(calls, {"quick": quick}, timeout_s=None)
    assert [c.result for c in calls] == ["ok", "ok"]


def test_a_process_tool_timed_out_before_it_made_its_session_is_killed_too() -> None:
    @tool(isolate="process", timeout_s=0.001)  # the deadline comes while the child starts
    def spin(n: int) -> str:
        """Keep a CPU busy."""
        while True:
            n += 1

    calls = [ToolCall(f"toolu_{i}", "spin", {"n": i}) for i in range(8)]
    answer_calls(calls, {"spin": spin}, timeout_s=None)
    assert [(c.is_error, c.abandoned) for c in calls] == [(True, False)] * len(calls)
    assert multiprocessing.active_children() == []


@pytest.mark.skipif(sys.platform != "linux", reason="daemons stay below a subreaper on Linux")
def test_what_a_late_starting_process_tool_starts_during_its_kill_dies_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a busy machine the tool's process may not have run at all when its deadline
    comes, and run while it is being killed: not yet in its own group, nothing links what
    it starts then to the kill, unless it is stopped first. Here the deadline comes while
    the child starts, and the loop pauses after the marker kill, as a loaded machine makes
    it do."""
    monkeypatch.setattr(looplab.running.processes, "new_mark", lambda: "late0start0test0mark")
    real_kill_marked = looplab.running.processes.kill_marked

    def kill_marked_then_pause(mark: str, group: int | None = None) -> None:
        real_kill_marked(mark, group)
        time.sleep(0.5)

    monkeypatch.setattr(looplab.running.processes, "kill_marked", kill_marked_then_pause)

    @tool(isolate="process", timeout_s=0.01)
    def spawn(n: int) -> str:
        """Start a child and a daemon, then hang."""
        subprocess.Popen(["sleep", "600"])
        subprocess.run([sys.executable, "-c", SPAWN], stdout=subprocess.DEVNULL)
        time.sleep(600)
        return "late"

    calls = [ToolCall("toolu_0", "spawn", {"n": 0})]
    answer_calls(calls, {"spawn": spawn}, timeout_s=None)
    assert calls[0].is_error and multiprocessing.active_children() == []
    time.sleep(0.5)  # had the tool gone on, its daemon would run by now
    assert marked_pids("late0start0test0mark") == []


def test_a_process_tool_returns_its_result_and_its_errors() -> None:
    @tool(isolate="process")
    def pid(fail: bool) -> str:
        """Say which process ran the call."""
        if fail:
            raise ValueError("asked to fail")
        return str(os.getpid())

    model = ScriptedModel([[call("pid", fail=False), call("pid", fail=True)], say("Done.")])
    result = run_agent(fake_client(model), "Go.", tools=[pid])
    ran, failed = result.turns[0].tool_calls
    assert not ran.is_error and int(ran.result) != os.getpid()
    assert (failed.result, failed.is_error) == ("ValueError: asked to fail", True)
