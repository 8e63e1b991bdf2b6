"""A call of an `isolate="process"` tool: a child process that a timeout or a Ctrl-C kills
together with every process it started (`processes.kill_tree`, `kill_marked`).

The child comes from a clean process, never from a bare fork of the loop's process: a fork
copies every lock as it is at that moment, and a lock another thread held then (a logging
handler's, stdout's) stays held in the child for good, so a tool that logs would hang.
`multiprocessing`'s *forkserver* starts one single-threaded server process on first use
and forks each child from it. The tool's function and input reach the child by value, with
`cloudpickle` (the standard pickle sends a function by name, and a function defined in a
notebook has no name another process can import); the result comes back with pickle.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from typing import Any

from ..i18n import current, set_language, worded
from .calls import Outcome, Runnable, _call_tool, interrupted
from .output import describe

_PRELOAD = ["looplab.running.process_calls"]  # imported once by the server, not per call


def _context() -> Any:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx


def call_in_process(t: Runnable, input: Any, limit: float | None) -> Outcome:
    """Run the call in a child process; kill it and all it started when it ends, at
    `limit` seconds, or on Ctrl-C. Never raises."""
    import cloudpickle  # type: ignore[import-untyped]  # here: not in the browser (Pyodide)

    from . import processes

    started = time.monotonic()
    try:
        payload = cloudpickle.dumps((t.fn, input, current()))
    except Exception as e:
        why = worded("not run: this tool runs in a process of its own (isolate=\"process\"), "
                     "and its function or input cannot be sent there: {error}",
                     error=describe(e))
        return Outcome(why, is_error=True, outcome="not_run")
    mark = processes.new_mark()
    try:
        ctx = _context()
        here, there = ctx.Pipe(duplex=True)
        child = ctx.Process(target=_child, args=(payload, there, mark), daemon=True)
        child.start()
    except Exception as e:  # no processes here (Pyodide), or the system refused one
        why = worded("not run: this tool runs in a process of its own (isolate=\"process\"), "
                     "and none could be started: {error}", error=describe(e))
        return Outcome(why, is_error=True, outcome="not_run")
    there.close()
    try:
        content, is_error, outcome = _wait(here, limit)
    except KeyboardInterrupt:
        content, is_error, outcome = interrupted(), True, "interrupted"
    finally:
        _end(child, here, mark)
    if content is None:
        content = worded("the tool's process died (exit code {code}) without a result",
                         code=child.exitcode)
    return Outcome(content, is_error, outcome, time.monotonic() - started)


def _wait(here: Any, limit: float | None) -> tuple[Any, bool, str]:
    if not here.poll(limit):
        return (worded("timed out after {limit:g} s; the tool's process and every process "
                       "it started were killed. Try a smaller or different call.",
                       limit=limit), True, "ran")
    try:
        return here.recv()  # type: ignore[no-any-return]
    except (EOFError, OSError):
        return None, True, "ran"  # the child died without an answer


def _end(child: Any, here: Any, mark: str) -> None:
    """Kill the child's tree (while the child still holds the orphans it adopted), every
    process carrying its mark, then the child. Runs again if a Ctrl-C cuts it short."""
    from .processes import kill_marked, kill_tree

    for _ in range(3):
        try:
            if child.pid is not None:
                kill_tree(child.pid)
            kill_marked(mark, child.pid)
            child.kill()
            child.join()
            here.close()
            return
        except KeyboardInterrupt:
            continue


def _child(payload: bytes, conn: Any, mark: str) -> None:
    import cloudpickle

    from .processes import MARK, become_subreaper, prepare_subreaper

    os.setsid()  # its own session and group: one kill reaches everything it starts
    prepare_subreaper()
    become_subreaper()  # and daemons that leave the session stay below it
    os.environ[MARK] = mark
    fn, input, language = cloudpickle.loads(payload)
    set_language(language)  # the child speaks the language of the run that called it
    outcome = _call_tool(_Fn(fn), input)
    try:
        conn.send(outcome)
    except Exception as e:  # e.g. content blocks that cannot be pickled
        conn.send((describe(e), True, "ran"))
    # Stay until the parent has killed what the tool left running: once this process
    # ends, the daemons it adopted go to init, and nothing links them to the call.
    try:
        conn.recv()
    except (EOFError, OSError):
        pass


class _Fn:
    """A bare function as the `Runnable` that `call_tool` takes."""

    def __init__(self, fn: Any) -> None:
        self.fn, self.name, self.timeout_s, self.isolate = fn, "", None, "process"
