"""A soak: 40 runs whose tools hang, spin and start processes that outlive them. Every run
ends with a sendable history, and afterwards no thread beyond the documented cap and no
process any of the runs started is still alive.

`benchmarks/bench_soak.py` checks the other half: later work is not slower after the soak.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import psutil
import pytest

import looplab.running.processes
from looplab import Limits, ScriptedModel, call, check_history, fake_client, run_agent, say, tool
from looplab.running.processes import MARK, run_subprocess
from looplab.running.threads import MAX_HUNG_THREADS, HungThreadsWarning

pytestmark = pytest.mark.slow  # seconds each: `make quick` leaves them out

RUNS = 40  # the calls of a turn run one after another: 0.8 s a run
TIMEOUT_S = 0.2
release = threading.Event()

DAEMON = [sys.executable, "-c", "import subprocess; subprocess.Popen(['sleep', '600'], "
          "start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)"]


@tool
def hang(n: int) -> str:
    """Sleep past the timeout, in a thread (it cannot be killed, so it is abandoned)."""
    release.wait(120)
    return "late"


@tool(isolate="process")
def spin(n: int) -> str:
    """Keep a CPU busy forever, in a process (killed at the timeout)."""
    os.nice(19)  # busy all the same, on CPU no other test wants: 40 runs, 8 s of CPU
    while True:
        n += 1


@tool(isolate="process")
def fork(n: int) -> str:
    """Start a child and a daemon that leaves the session, then wait for them."""
    child = subprocess.Popen(["sleep", "600"])
    subprocess.run(DAEMON, check=True)
    child.wait()
    return "late"


@tool
def shell(n: int) -> str:
    """Start a daemon through run_subprocess, from a thread, then wait for the timeout."""
    return run_subprocess([*DAEMON[:2], DAEMON[2] + "; import time; time.sleep(600)"],
                          cwd=".", timeout_s=None).stdout


def marked_alive(marks: set[str]) -> list[int]:
    """Live processes (zombies excepted) whose environment carries one of `marks`."""
    wanted = set(marks)  # a copy: a call still ending in its thread may add to `marks`
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get(MARK) in wanted and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        except psutil.Error:  # gone already, or not ours
            continue
    return found


def ending_calls() -> list[threading.Thread]:
    """Threads of calls that timed out and are still ending (not the hung ones, which wait
    for `release`): a `shell` call's run_subprocess kills its process at its deadline."""
    return [t for t in threading.enumerate()
            if t.name.startswith("looplab tool ") and t.name != "looplab tool hang"]


@pytest.fixture
def marks(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[str]]:
    """Every mark the runs give their processes."""
    made: set[str] = set()
    real = looplab.running.processes.new_mark

    def recording() -> str:
        made.add(mark := real())
        return mark

    monkeypatch.setattr(looplab.running.processes, "new_mark", recording)
    release.clear()
    yield made
    release.set()  # the abandoned threads return now


@pytest.mark.skipif(sys.platform != "linux", reason="daemons stay below a subreaper on Linux")
def test_forty_runs_with_hostile_tools_leave_nothing_behind(marks: set[str]) -> None:
    limits = Limits(tool_timeout_s=TIMEOUT_S)
    statuses, outcomes = set(), []
    with pytest.warns(HungThreadsWarning):
        for n in range(RUNS):
            # hung calls join in the second half: they fill the thread cap, and from then
            # on thread calls are refused
            names = ["spin", "fork", "shell"] + (["hang"] if n >= RUNS // 2 else [])
            model = ScriptedModel([[call(t, n=n) for t in names], say("Every tool failed.")])
            result = run_agent(fake_client(model), "Go.", tools=[hang, spin, fork, shell],
                               limits=limits)
            assert check_history(result.messages) == []
            statuses.add(str(result))
            outcomes += [(c.name, c.outcome) for c in result.turns[0].tool_calls]
            assert all(c.is_error for c in result.turns[0].tool_calls)
    assert statuses == {"done"}
    assert outcomes.count(("shell", "ran")) >= RUNS // 2
    assert outcomes.count(("hang", "not_run")) >= RUNS // 2 - MAX_HUNG_THREADS
    tool_threads = [t for t in threading.enumerate() if t.name.startswith("looplab tool ")]
    assert len(tool_threads) <= MAX_HUNG_THREADS
    assert len(marks) >= 2 * RUNS  # spin and fork ran in marked processes in every run
    end = time.monotonic() + 10
    while ending_calls() and time.monotonic() < end:
        time.sleep(0.05)
    assert ending_calls() == []
    end = time.monotonic() + 10  # a SIGKILLed process may take a moment to exit
    while (left := marked_alive(marks)) and time.monotonic() < end:
        time.sleep(0.1)
    assert left == []
