"""The deadline of the tool call running in this thread, for code that must stop on time."""

from __future__ import annotations

import threading
import time

_local = threading.local()


def set_deadline(limit_s: float | None) -> None:
    """Start the clock of the call this thread runs (`None`: no timeout)."""
    _local.deadline = None if limit_s is None else time.monotonic() + limit_s


def time_left() -> float | None:
    """Seconds the loop still waits for the tool call running in this thread.

    `None` outside a loop or when the call has no timeout. `run_subprocess` uses it so
    that a subprocess dies when the loop gives up on it.
    """
    deadline: float | None = getattr(_local, "deadline", None)
    return None if deadline is None else max(0.0, deadline - time.monotonic())
