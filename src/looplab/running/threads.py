"""A call with a timeout, in a thread of its own that the loop stops waiting for.

A Python thread cannot be killed: a call that overruns gets its timeout result at once and
its thread runs on until the function returns (`Outcome.abandoned`). At most
`MAX_HUNG_THREADS` such threads may still be running; past that, a call with a timeout is
not started (its result says why) and a `HungThreadsWarning` is issued. The count is of
threads alive now, so nothing is held once they end, whatever interrupted the loop.

A new thread per call, not a pool: a pool's slots are state that a Ctrl-C at the wrong line
can leak, and a thread that has returned is gone (a kernel can shut down).
"""

from __future__ import annotations

import threading
import time
import warnings
from typing import Any

from ..errors import LooplabWarning
from ..i18n import worded
from .calls import Outcome, Runnable, call_tool, interrupted
from .deadline import set_deadline

MAX_HUNG_THREADS = 8
"""Most threads of timed-out calls that may still be running when a new call starts."""

_hung: set[threading.Thread] = set()
_hung_lock = threading.Lock()


class HungThreadsWarning(LooplabWarning, RuntimeWarning):
    """Too many tool calls that timed out are still running in threads."""


def hung_threads() -> int:
    """How many threads of timed-out calls are still running."""
    with _hung_lock:
        _hung.difference_update([t for t in _hung if not t.is_alive()])
        return len(_hung)


def call_in_thread(t: Runnable, input: Any, limit: float) -> Outcome:
    """Run the call in a new daemon thread; stop waiting for it after `limit` seconds."""
    n = hung_threads()
    if n >= MAX_HUNG_THREADS:
        why = worded("not run: {n} earlier tool calls that timed out are still running in "
                     "threads (limit {limit}). Make the hung tool return, or declare it with "
                     "@tool(isolate=\"process\") so a timeout kills it.",
                     n=n, limit=MAX_HUNG_THREADS)
        warnings.warn(why, HungThreadsWarning, stacklevel=5)
        return Outcome(why, is_error=True, outcome="not_run")
    box: list[tuple[Any, bool, str]] = []
    lock, done = threading.Lock(), threading.Event()
    gave_up = False

    def work() -> None:
        set_deadline(limit)
        value = call_tool(t, input)
        with lock:
            if not gave_up:
                box.append(value)
        done.set()

    thread = threading.Thread(target=work, name=f"looplab tool {t.name}", daemon=True)
    started = time.monotonic()
    try:
        thread.start()
    except RuntimeError:  # "can't start new thread": Pyodide, in the browser
        from .inline import run_inline

        return run_inline(t, input, limit)
    try:
        done.wait(limit)
    except KeyboardInterrupt:
        with lock:
            gave_up = not box
        if gave_up:
            _abandon(thread)
            return Outcome(interrupted(), True, "interrupted", time.monotonic() - started,
                           abandoned=True)
    with lock:
        gave_up = not box
    if gave_up:
        _abandon(thread)
        why = worded("timed out after {limit:g} s. Try a smaller or different call.",
                     limit=limit)
        return Outcome(why, is_error=True, duration_s=float(limit), abandoned=True)
    thread.join()  # it has recorded its result: it ends now
    content, is_error, outcome = box[0]
    return Outcome(content, is_error, outcome, time.monotonic() - started)


def _abandon(thread: threading.Thread) -> None:
    with _hung_lock:
        _hung.add(thread)
