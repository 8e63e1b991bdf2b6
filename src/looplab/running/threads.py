"""The threads that run thread-isolated tool calls: a small pool with a hard cap.

A thread whose call has returned waits for the next call instead of ending: starting a
thread costs about as much as a whole call of a small tool. A call that times out keeps
its thread until the function returns (Python cannot kill a thread): that thread is
*abandoned*. At most `MAX_ABANDONED_THREADS` threads exist, busy, abandoned or idle, so
hung tools cannot pile up without bound.

Not `concurrent.futures.ThreadPoolExecutor`: its threads are joined when the interpreter
exits, so one hung tool would keep a notebook's kernel from shutting down. These are
daemon threads.
"""

from __future__ import annotations

import contextvars
import functools
import queue
import threading
import time
import traceback
import warnings
from collections.abc import Callable

from .words import worded

MAX_ABANDONED_THREADS = 8
"""Most threads that tool calls may occupy at once, running or timed out and abandoned."""

IDLE_NAME = "looplab idle tool thread"


class AbandonedThreadsWarning(RuntimeWarning):
    """Too many timed-out tool calls are still running in threads."""


class NoThreads(RuntimeError):
    """No thread can be started here: Pyodide (the browser edition) has none; the caller
    runs the call itself."""


class Slot:
    """One pool thread and the calls handed to it, one at a time."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[tuple[str, Callable[[], None]]] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._serve, name=IDLE_NAME, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            name, job = self.jobs.get()
            self.thread.name = name  # "tool <name>" while it runs, for anyone looking
            try:
                job()  # it records its own result and does not raise
            except BaseException:  # noqa: B036 (a bug: report it, and keep the thread serving)
                traceback.print_exc()
            finally:
                self.thread.name = IDLE_NAME
                _release(self)


_idle: list[Slot] = []
_taken = 0  # threads running a call, abandoned ones included
_abandoned: set[Slot] = set()  # threads whose call timed out and has not returned yet
_lock = threading.Condition()  # guards the three above; notified when a call returns


def submit(name: str, job: Callable[[], None], deadline: float | None) -> Slot | str:
    """Run `job` on a pool thread named `name` and return its slot, once fewer than
    `MAX_ABANDONED_THREADS` calls run; if all of them are abandoned, or none returns
    before `deadline`, do not: return why (and warn). `NoThreads` when no thread starts."""
    text = _take(deadline)
    if text is not None:
        warnings.warn(text, AbandonedThreadsWarning, stacklevel=4)
        return text
    with _lock:
        slot = _idle.pop() if _idle else None
    try:
        slot = slot or Slot()  # outside the lock: starting a thread waits for it to run
    except RuntimeError as e:  # "can't start new thread"
        _untake()
        raise NoThreads(str(e)) from e
    # the job runs in its caller's context: it speaks the language its caller speaks
    slot.jobs.put((name, functools.partial(contextvars.copy_context().run, job)))
    return slot


def abandon(slot: Slot) -> None:
    """Count `slot`'s running call as timed out, until it returns."""
    with _lock:
        _abandoned.add(slot)


def abandoned_threads() -> int:
    """How many threads of timed-out calls are still running."""
    with _lock:
        return len(_abandoned)


def _take(deadline: float | None) -> str | None:
    global _taken
    with _lock:
        while True:
            if _taken < MAX_ABANDONED_THREADS:
                _taken += 1
                return None
            if len(_abandoned) >= MAX_ABANDONED_THREADS:
                return worded("not run: {n} earlier tool calls that timed out are still "
                              "running in threads (limit {limit}). Make the hung tool return, "
                              "or declare it with @tool(isolate=\"process\") so a timeout "
                              "kills it.", n=len(_abandoned), limit=MAX_ABANDONED_THREADS)
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return worded("not run: {limit} tool calls already ran in threads (the limit) "
                              "and none ended before this call's timeout. Make fewer calls at "
                              "once, or declare slow tools with @tool(isolate=\"process\").",
                              limit=MAX_ABANDONED_THREADS)
            _lock.wait(left)


def _untake() -> None:
    global _taken
    with _lock:
        _taken -= 1
        _lock.notify_all()


def _release(slot: Slot) -> None:
    global _taken
    with _lock:
        _taken -= 1
        _abandoned.discard(slot)
        _idle.append(slot)
        _lock.notify_all()  # a call waiting for a thread may run now
