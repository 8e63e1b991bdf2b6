"""Running one tool call: whatever happens, an `Outcome` the loop can send back.

Any exception (even `SystemExit`, or one whose `str()` raises), a timeout, a return value
the API cannot take: each becomes an `is_error` result whose text says what went wrong. A
tool that raises `KeyboardInterrupt` (Ctrl-C) is marked `outcome="interrupted"`.

Where a call runs is the tool's choice, as in the article's loop:
- by default, here, in the loop's own thread (`breakpoint()` in a tool stops right there);
- with a timeout (`@tool(timeout_s=...)` or `Limits.tool_timeout_s`): in a thread of its
  own, which the loop stops waiting for at the deadline (`threads.py`);
- with `isolate="process"`: in a child process, killed with everything it started at the
  deadline or on Ctrl-C (`process_calls.py`).
"""

from __future__ import annotations

import time
from typing import Any

from .here import Outcome, Runnable, call_tool
from .process_calls import call_in_process
from .threads import call_in_thread

__all__ = ["Outcome", "Runnable", "call_tool", "run_call"]


def run_call(t: Runnable, input: Any, *, timeout_s: float | None = None) -> Outcome:
    """Run one call of tool `t` and return its `Outcome`; never raises.

    `timeout_s` is the limit of a tool that sets none of its own (`Limits.tool_timeout_s`).
    """
    limit = t.timeout_s if t.timeout_s is not None else timeout_s
    if t.isolate == "process":
        return call_in_process(t, input, limit)
    if limit is not None:
        return call_in_thread(t, input, limit)
    started = time.monotonic()
    content, is_error, outcome = call_tool(t, input)
    return Outcome(content, is_error, outcome, time.monotonic() - started)
