"""Lesson 15's circuit breaker: a tool that keeps failing stops being called for a while.

    breaker = CircuitBreaker(after=3, cool_down_s=60, clock=clock)
    guarded = breaker.guard(place_order_tool)   # same definition, calls pass the breaker

A model retries a failing tool; each retry costs a turn and, for a tool with side effects,
more work to undo. After `after` failures in a row the breaker **opens**: calls are answered
`is_error` ("circuit open") without running the tool. When `cool_down_s` has passed on
`clock`, it lets **one** call through (half open): a success closes it, a failure opens it
again for another cool-down. Calls at once from threads (parallel tool calls) see one state:
while open, none runs; half open, exactly one does.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any

from ..core.tools import Tool
from ..i18n import _
from ..running.output import ToolError


class CircuitBreaker:
    """Counts a tool's failures in a row; opens after `after`, for `cool_down_s` on `clock`."""

    def __init__(self, after: int = 3, cool_down_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not isinstance(after, int) or isinstance(after, bool) or after < 1:
            raise ValueError(f"CircuitBreaker(after={after!r}): use a whole number >= 1")
        if not cool_down_s > 0:
            raise ValueError(f"CircuitBreaker(cool_down_s={cool_down_s!r}): use seconds > 0")
        self.after, self.cool_down_s, self.clock = after, float(cool_down_s), clock
        self.failures = 0
        self.opened_at: float | None = None
        self.trial = False  # a half-open trial call is running
        self.ran = 0  # calls that reached the tool
        self.refused = 0  # calls answered "circuit open" without running it
        self._lock = threading.Lock()

    @property
    def state(self) -> str:
        """"closed", "open" or "half-open" (cooled down: the next call is a trial)."""
        with self._lock:
            return self._state()

    def _state(self) -> str:
        if self.opened_at is None:
            return "closed"
        cooled = self.clock() - self.opened_at >= self.cool_down_s
        return "half-open" if cooled else "open"

    def _admit(self, name: str) -> bool:
        """May this call run? True for a trial call (half open); raises when open."""
        with self._lock:
            state = self._state()
            if state == "closed":
                self.ran += 1
                return False
            if state == "half-open" and not self.trial:
                self.trial = True
                self.ran += 1
                return True
            self.refused += 1
            assert self.opened_at is not None
            wait = max(0.0, self.opened_at + self.cool_down_s - self.clock())
        raise ToolError(_("circuit open: {name} was not run; it failed {failures} times in a "
                          "row. Try again in {wait:g} s, or do without it.").format(
                              name=name, failures=self.failures, wait=wait))  # fmt: skip

    def call(self, name: str, fn: Callable[..., Any], /, **tool_input: Any) -> Any:
        """`fn(**tool_input)` through the breaker; `name` is the tool's, for the message."""
        trial = self._admit(name)
        try:
            result = fn(**tool_input)
        except Exception:
            with self._lock:
                self.failures += 1
                if trial or self.failures >= self.after:
                    self.opened_at = self.clock()
            raise  # a Ctrl-C (BaseException) is no verdict on the tool: not counted
        else:
            with self._lock:
                self.failures, self.opened_at = 0, None
            return result
        finally:
            if trial:
                with self._lock:
                    self.trial = False

    def guard(self, t: Tool) -> Tool:
        """The tool `t` (same definition), its calls passed through this breaker."""

        def guarded(**tool_input: Any) -> Any:
            return self.call(t.name, t.fn, **tool_input)

        return dataclasses.replace(t, fn=guarded)
