"""Is later work slower after runs with hostile tools? `python benchmarks/bench_soak.py`.

Times `check_history` on a 40k-message history, then does 100 runs whose tools hang (in a
thread), keep a CPU busy and start daemons (in processes, killed at the timeout), then
times it again. Hung threads are capped and sleep, busy and forking processes are killed,
so the ratio after/before should stay near 1.0; the goal is at most 1.2x.

For comparison it then shows why busy tools belong in processes: with busy tools left in
threads (which cannot be killed), the capped threads spin on and every later call pays.
CPU time of this process, best of five windows, as in `bench_rules.py`.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import time
import warnings

from bench_rules import history, seconds_per_call
from goals import judged

from looplab import Limits, ScriptedModel, call, fake_client, run_agent, say, tool
from looplab.core.tools import Tool
from looplab.running.threads import (
    MAX_ABANDONED_THREADS,
    AbandonedThreadsWarning,
    abandoned_threads,
)

GOAL = 1.2
RUNS = 100
SIZE = 40_000
release = threading.Event()  # ends the hung threads after the soak
stop = threading.Event()  # ends the spinning threads at the end


@tool
def hang(n: int) -> str:
    """Sleep past the timeout, in a thread."""
    release.wait()
    return "late"


def busy(n: int) -> str:
    """Keep a CPU busy until told to stop (as a thread) or killed (as a process)."""
    while not stop.is_set():
        n += 1
    return "late"


@tool(isolate="process")
def fork(n: int) -> str:
    """Start a child and a daemon that leaves the session, then wait for them."""
    child = subprocess.Popen(["sleep", "600"])
    subprocess.Popen(["sleep", "600"], start_new_session=True)
    child.wait()
    return "late"


def soak(tools: list[Tool], runs: int) -> None:
    limits = Limits(tool_timeout_s=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AbandonedThreadsWarning)
        for n in range(runs):
            model = ScriptedModel([[call(t.name, n=n) for t in tools], say("Every tool failed.")])
            run_agent(fake_client(model), "Go.", tools=tools, limits=limits)


def timed(repeats: int = 5) -> float:
    """check_history's time on a fresh 40k-message history. (Built anew each time, so that
    the soak's forked processes do not copy a large heap.)"""
    messages = history(SIZE)
    gc.collect()
    gc.freeze()  # as in bench_rules: the history is long-lived input
    try:
        return seconds_per_call(messages, calls=3, repeats=repeats)
    finally:
        gc.unfreeze()


def main() -> None:
    before = timed()
    soak([hang, tool(busy, isolate="process"), fork], RUNS)
    after = timed()
    ratio = after / before
    print(f"check_history, {SIZE:,} messages: {before:.3f} s CPU before {RUNS} hostile runs, "
          f"{after:.3f} s after")
    print(judged("after/before", ratio, GOAL))
    release.set()  # the hung threads end: the cap is free again
    while abandoned_threads():
        time.sleep(0.01)
    soak([tool(busy)], MAX_ABANDONED_THREADS)  # busy tools left in threads, for comparison
    threads = sum(t.name == "tool busy" and t.is_alive() for t in threading.enumerate())
    spinning = timed(repeats=1) / before
    stop.set()
    print(f"for comparison, busy tools in threads ({threads} spinning, the cap is "
          f"{MAX_ABANDONED_THREADS}): {spinning:.1f}x. Declare such tools "
          "@tool(isolate=\"process\").")


if __name__ == "__main__":
    sys.exit(main())
