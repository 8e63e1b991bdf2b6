"""A process tool starts from a clean process, never a bare fork of the loop's threaded
process: a tool that logs, while thread tools log at the same time, never hangs on a lock a
fork copied as held. And Ctrl-C during a process tool ends its whole process tree before
the run returns."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

import psutil
import pytest

from looplab import Limits, ScriptedModel, call, fake_client, run_agent, say, tool

pytestmark = pytest.mark.slow  # a process per call, and waiting on purpose

log = logging.getLogger("looplab.test.process_tools")


@tool(timeout_s=5)
def log_in_a_thread(n: int) -> str:
    """Log a lot, in a thread of its own."""
    for i in range(2000):
        log.warning("thread %s line %s", n, i)
    return "logged"


@tool(isolate="process", timeout_s=20)
def log_in_a_process(n: int) -> str:
    """Log, in a process of its own."""
    logging.getLogger("looplab.test.process_tools").warning("process %s", n)
    return "logged"


def test_a_process_tool_that_logs_beside_thread_tools_never_hangs() -> None:
    logging.basicConfig(level=logging.WARNING, handlers=[logging.NullHandler()], force=True)
    stop = threading.Event()

    def chatter() -> None:  # another thread holds the logging lock again and again
        while not stop.is_set():
            log.warning("chatter")

    noisy = threading.Thread(target=chatter, daemon=True)
    noisy.start()
    try:
        script = [[call("log_in_a_thread", n=i), call("log_in_a_process", n=i)]
                  for i in range(19)]
        model = ScriptedModel([*script, say("done")])
        result = run_agent(fake_client(model), "Log.", tools=[log_in_a_thread, log_in_a_process],
                           limits=Limits(max_turns=None, max_repeats=None))
    finally:
        stop.set()
        noisy.join()
    outcomes = [(c.name, c.result) for t in result.turns for c in t.tool_calls]
    assert str(result) == "done"
    assert outcomes.count(("log_in_a_process", "logged")) == 19  # none timed out on a lock


@tool(isolate="process")
def sleeper(loop_pid: int) -> str:
    """Start a child, then interrupt the loop and wait."""
    import subprocess

    subprocess.Popen(["sleep", "600"])
    os.kill(loop_pid, signal.SIGINT)  # Ctrl-C, to the loop's process
    time.sleep(600)
    return "never"


def helper(p: psutil.Process) -> bool:
    """multiprocessing's own fork server and resource tracker, which stay for later calls."""
    command = " ".join(p.cmdline())
    return "forkserver" in command or "resource_tracker" in command


def test_ctrl_c_during_a_process_tool_ends_its_tree_before_the_run_returns() -> None:
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        model = ScriptedModel([call("sleeper", loop_pid=os.getpid()), say("never")])
        result = run_agent(fake_client(model), "Go.", tools=[sleeper])
    finally:
        signal.signal(signal.SIGINT, saved)
    assert result.status == "interrupted"
    [c] = result.turns[0].tool_calls
    assert c.outcome == "interrupted"
    left = [p for p in me.children(recursive=True) if p.pid not in before
            and p.status() != psutil.STATUS_ZOMBIE and not helper(p)]
    assert left == []  # at once: the tool's process and its child are gone
