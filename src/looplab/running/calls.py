"""Running the model's tool calls so that none can crash, hang or flood the loop.

Every call gets an `Outcome`, whatever happens: any exception (even `SystemExit` or one
whose `str()` raises), a timeout, a return value the API cannot take — each becomes an
`is_error` result whose text says what went wrong. (Whether a call may run at all, its
tool's name and its input, the loop decides first: `looplab.core.tools.refusal`.) A tool
that raises `KeyboardInterrupt` is marked `outcome="interrupted"`, and the loop ends the
run with status `interrupted`.

Where a call runs, and what a timeout can do about it:
- `isolate="thread"` (the default): a thread of a small pool (`threads.py`). A Python
  thread cannot be killed, so a call that overruns gets its timeout result at once and its
  thread runs on until the function returns (`Outcome.abandoned`). At most
  `threads.MAX_ABANDONED_THREADS` threads may run calls at once, abandoned or not, so hung
  tools cannot pile up without bound: a call beyond that waits for a thread to be free,
  until its own deadline; when all of them are abandoned, or
  none ends in time, the call is not run (its result says why) and an
  `AbandonedThreadsWarning` is issued.
- `isolate="process"`: a child process in its own session (POSIX, `fork`). When the call
  ends or times out, every process it started is killed, daemons included
  (`processes.kill_tree` and `kill_marked`), and on timeout the child too.
  The function and its input are not pickled (fork copies them); its result is.
- Where no thread can start (Pyodide, in the browser): in the caller, one call after
  another, with no timeout (`inline.py`); process tools are not run there.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from anthropic.lib.tools import ToolError as _SDKToolError

from .coroutines import run_to_end
from .deadline import set_deadline
from .inline import run_inline
from .output import Unsendable, describe, to_content
from .threads import NoThreads, Slot, abandon, submit
from .words import worded


@dataclass
class Outcome:
    """What one call came to: the `tool_result` content and how the call ended."""

    result: Any
    is_error: bool
    outcome: str = "ran"
    """"ran", "not_run" (it never started: no thread was free) or "interrupted" (the
    tool raised `KeyboardInterrupt`)."""
    duration_s: float = 0.0
    abandoned: bool = False
    """It timed out in a thread that is still running (a thread cannot be killed)."""


class Runnable(Protocol):
    """What running a call needs of a tool (`looplab.core.tools.Tool` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def fn(self) -> Callable[..., Any]: ...
    @property
    def timeout_s(self) -> float | None: ...
    @property
    def isolate(self) -> str: ...


def run_calls(
    calls: Sequence[tuple[Runnable, Any]], *, timeout_s: float | None
) -> list[Outcome]:
    """Run each `(tool, input)` concurrently; one `Outcome` per call, in call order.

    `timeout_s` is the limit of a tool that sets none of its own. Timeouts and each call's
    `duration_s` are real seconds (`time.monotonic`): waiting for a thread takes real time,
    whatever clock the run's timeout gate reads. Thread calls beyond `MAX_ABANDONED_THREADS`
    at once wait for a free thread, until their own deadline.
    """
    lock = threading.Lock()  # a late worker must not overwrite a timeout result
    outcomes: list[Outcome | None] = [None] * len(calls)
    begin = time.monotonic()
    started: list[_Started] = []
    try:
        for i, (t, input) in enumerate(calls):
            _start(i, t, input, timeout_s, begin, outcomes, started, lock)
        for i, t, pooled, done, limit in started:
            wait = None if limit is None else max(0.0, begin + limit - time.monotonic())
            if t.isolate == "process" and wait is not None:
                wait += 5.0  # the worker kills the process at the deadline and reports it
            if not done.wait(wait):
                _time_out(outcomes, i, pooled, done, limit, lock)
    except KeyboardInterrupt:  # Ctrl-C while calls run: say what is true of each
        _interrupt(outcomes, started, lock)
    return [o for o in outcomes if o is not None]


class _Done:
    """Set once, when the call has its result: `threading.Event` as one bare lock, held
    until then. An Event's `Condition` puts Python code on each hand-off to a pool thread
    and back (`benchmarks/bench_loop.py`: run_agent 1.05x the plain loop with it, 1.03x)."""

    __slots__ = ("_held", "_set")

    def __init__(self) -> None:
        self._held, self._set = threading.Lock(), False
        self._held.acquire()

    def is_set(self) -> bool:
        return self._set  # not the lock's state: Ctrl-C may come as `wait` holds it

    def set(self) -> None:
        self._set = True
        self._held.release()

    def wait(self, timeout: float | None) -> bool:
        if self._held.acquire(timeout=-1 if timeout is None else timeout):
            self._held.release()
        return self._set


_Started = tuple[int, Runnable, Slot | None, _Done, float | None]
"""A call that has started: its index, tool, pool slot (None: a process), done, limit."""


def _start(i: int, t: Runnable, input: Any, timeout_s: float | None, begin: float,
           outcomes: list[Outcome | None], started: list[_Started],
           lock: threading.Lock) -> None:
    """Start call `i` in a thread of the pool or a process (or answer it: no thread free)."""
    limit = t.timeout_s if t.timeout_s is not None else timeout_s
    deadline = None if limit is None else begin + limit
    done = _Done()
    job = functools.partial(_worker, t, input, outcomes, i, done, limit, deadline, lock)
    if t.isolate == "process":  # bounded: the worker kills the process at the deadline
        try:
            threading.Thread(target=job, name=f"tool {t.name}", daemon=True).start()
        except RuntimeError:  # "can't start new thread": no processes either (Pyodide)
            why = worded("not run: this tool runs in a process of its own "
                         "(isolate=\"process\"), and this Python can start neither threads "
                         "nor processes (Pyodide, in the browser). Run it in a local install "
                         "of looplab.")
            outcomes[i] = Outcome(why, is_error=True, outcome="not_run")
            return
        started.append((i, t, None, done, limit))
    else:
        try:
            taken = submit(f"tool {t.name}", job, deadline)
        except NoThreads:  # Pyodide (the browser): the call runs here, to its end
            run_inline(job, limit)
            started.append((i, t, None, done, None))
            return
        if isinstance(taken, str):
            outcomes[i] = Outcome(taken, is_error=True, outcome="not_run")
        else:
            started.append((i, t, taken, done, limit))


def _interrupt(outcomes: list[Outcome | None], started: list[_Started],
               lock: threading.Lock) -> None:
    """After Ctrl-C, answer every call that has no result: one that started was interrupted
    while running (a thread cannot be stopped: its tool may still finish what it was
    doing); one that had not started was not run."""
    with lock:
        for i, _t, slot, done, _limit in started:
            if done.is_set():
                continue
            why = worded("interrupted while running: the run was stopped by the user "
                         "(KeyboardInterrupt); the tool may still finish in the background")
            outcomes[i] = Outcome(why, is_error=True, outcome="interrupted",
                                  abandoned=slot is not None)
            if slot is not None:
                abandon(slot)
            done.set()
        for i, outcome in enumerate(outcomes):
            if outcome is None:
                why = worded("not run: the run was stopped by the user (KeyboardInterrupt) "
                             "before this call started")
                outcomes[i] = Outcome(why, is_error=True, outcome="not_run")


def _time_out(outcomes: list[Outcome | None], i: int, slot: Slot | None,
              done: _Done, limit: float | None, lock: threading.Lock) -> None:
    """Give call `i` its timeout result, unless its worker has just recorded one."""
    with lock:
        if done.is_set():
            return
        why = worded("timed out after {limit:g} s. Try a smaller or different call.", limit=limit)
        outcomes[i] = Outcome(why, is_error=True, duration_s=float(limit or 0), abandoned=True)
        if slot is not None:  # a process call's thread ends after the kill
            abandon(slot)
        done.set()


def _worker(t: Runnable, input: Any, outcomes: list[Outcome | None], i: int,
            done: _Done, limit: float | None, deadline: float | None,
            lock: threading.Lock) -> None:
    """Run one call (`limit`: its timeout; `deadline`: when it ends, as the call may have
    waited for a thread) and record its result unless the call has timed out already."""
    set_deadline(None if deadline is None else max(0.0, deadline - time.monotonic()))
    started = time.monotonic()
    try:
        if t.isolate == "process":
            content, is_error, outcome = _call_in_process(t, input, limit, deadline)
        else:
            content, is_error, outcome = call_tool(t, input)
    except Exception as e:  # starting or killing the process failed: still a result
        why = worded("the tool could not be run: {error}", error=describe(e))
        content, is_error, outcome = why, True, "ran"
    with lock:
        if not done.is_set():
            outcomes[i] = Outcome(content, is_error, outcome, time.monotonic() - started)
            done.set()


def call_tool(t: Runnable, input: Any) -> tuple[Any, bool, str]:
    """Run one call here and now: `(content, is_error, outcome)`. Never raises."""
    try:
        value = t.fn(**input)
        if inspect.iscoroutine(value):
            value = run_to_end(value)
        elif inspect.isawaitable(value):
            raise Unsendable(worded("the tool returned a {kind}, an awaitable that is not a "
                                    "coroutine; make it an async def, or return its result",
                                    kind=type(value).__name__))
        return to_content(value), False, "ran"
    except _SDKToolError as e:  # the tool chose the text the model sees
        try:
            return to_content(e.content), True, "ran"
        except Unsendable as bad:
            return str(bad), True, "ran"
    except Unsendable as e:
        return str(e), True, "ran"
    except KeyboardInterrupt:
        return worded("interrupted: the run was stopped by the user (KeyboardInterrupt)"), \
            True, "interrupted"
    except BaseException as e:  # noqa: B036 (SystemExit, a broken exception: never the loop's end)
        return describe(e), True, "ran"


def _call_in_process(t: Runnable, input: Any, limit: float | None,
                     deadline: float | None) -> tuple[Any, bool, str]:
    """`call_tool` in a forked child in its own session; killed with its children on time."""
    import multiprocessing  # here, not at the top: only process-isolated tools need it

    from .processes import kill_marked, kill_tree, new_mark, prepare_subreaper

    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    mark = new_mark()
    prepare_subreaper()
    with warnings.catch_warnings():  # Python 3.12+ warns when a threaded process forks
        warnings.simplefilter("ignore", DeprecationWarning)
        child = ctx.Process(target=_child, args=(t, input, send, mark), daemon=True)
        child.start()
    send.close()
    try:
        if receive.poll(None if deadline is None else max(0.0, deadline - time.monotonic())):
            try:
                return receive.recv()  # type: ignore[no-any-return]
            except (EOFError, OSError):
                pass  # the child died without an answer
        else:
            return (worded("timed out after {limit:g} s; the tool's process and every process "
                           "it started were killed. Try a smaller or different call.",
                           limit=limit), True, "ran")
    finally:
        if child.pid is not None:
            kill_tree(child.pid)  # first, while the child still holds the orphans it adopted
        kill_marked(mark, child.pid)
        child.kill()  # in case it had not yet made its own session when the group was killed
        child.join()
        receive.close()
    return (worded("the tool's process died (exit code {code}) without a result",
                   code=child.exitcode), True, "ran")


def _child(t: Runnable, input: Any, send: Any, mark: str) -> None:
    from .processes import MARK, become_subreaper

    os.setsid()  # its own session and group: one kill reaches everything it starts
    become_subreaper()  # and daemons that leave the session stay below it
    os.environ[MARK] = mark
    outcome = call_tool(t, input)
    try:
        send.send(outcome)
    except Exception as e:  # e.g. content blocks that cannot be pickled
        send.send((describe(e), True, "ran"))
    # Stay until the parent has killed what the tool left running: once this process
    # ends, the daemons it adopted go to init, and nothing links them to the call.
    import multiprocessing  # already loaded by the parent before the fork

    parent = multiprocessing.parent_process()
    if parent is not None:
        parent.join()
