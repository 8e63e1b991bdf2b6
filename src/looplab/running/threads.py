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

import contextvars
import threading
import time
import warnings
from typing import Any

from ..errors import LooplabWarning
from ..i18n import worded
from .calls import Outcome, Runnable, _call_tool, interrupted
from .deadline import set_deadline
from .inline import run_inline

MAX_HUNG_THREADS = 8
"""Most threads of timed-out calls that may still be running when a new call starts."""

# No lock guards this set, on purpose: a Ctrl-C that lands between a lock's acquire and the
# start of its `with` block leaves the lock held for good. `add` and `discard` are atomic.
_hung: set[threading.Thread] = set()


class HungThreadsWarning(LooplabWarning, RuntimeWarning):
    """Too many tool calls that timed out are still running in threads."""


def hung_threads() -> int:
    """How many threads of timed-out calls are still running."""
    for t in list(_hung):
        if not t.is_alive():
            _hung.discard(t)
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
    box: list[tuple[Any, bool, str]] = []  # the result, once the call has returned
    done = threading.Lock()  # held until then: released by the call's thread, which never
    done.acquire()  # waits for anything the loop's thread holds

    def work() -> None:
        set_deadline(limit)
        box.append(_call_tool(t, input))
        done.release()

    # the call runs in its caller's context: it speaks the language its caller speaks
    thread = threading.Thread(target=contextvars.copy_context().run, args=(work,),
                              name=f"looplab tool {t.name}", daemon=True)
    started = time.monotonic()
    try:
        thread.start()
    except RuntimeError:  # "can't start new thread": Pyodide, in the browser
        return run_inline(t, input, limit)
    try:
        done.acquire(timeout=limit)
    except KeyboardInterrupt:
        if not box:
            _hung.add(thread)
            return Outcome(interrupted(), True, "interrupted", time.monotonic() - started,
                           abandoned=True)
    if not box:  # a result that comes later is dropped
        _hung.add(thread)
        why = worded("timed out after {limit:g} s. Try a smaller or different call.",
                     limit=limit)
        return Outcome(why, is_error=True, duration_s=float(limit), abandoned=True)
    thread.join()  # it has its result: it ends now
    content, is_error, outcome = box[0]
    return Outcome(content, is_error, outcome, time.monotonic() - started)
