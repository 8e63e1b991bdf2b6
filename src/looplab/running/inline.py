"""A call with a timeout where no thread can start (Pyodide, in the browser): it runs in
the caller, and nothing can stop it at its timeout. A warning says so, once, at the line of
the learner's code that started the run."""

from __future__ import annotations

import os
import sys
import time
import warnings
from typing import Any

from ..errors import LooplabWarning
from ..i18n import worded
from .calls import Outcome, Runnable, _call_tool
from .deadline import set_deadline

__all__ = ["TimeoutsNotEnforcedWarning", "run_inline"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _callers_level() -> int:
    """The `stacklevel` of the first frame outside looplab: the code that started the run
    (`warnings.warn(skip_file_prefixes=...)` does this from Python 3.12 on)."""
    frame, level = sys._getframe(2), 2  # level n is sys._getframe(n): 1 is the one warning
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


class TimeoutsNotEnforcedWarning(LooplabWarning, RuntimeWarning):
    """Tool calls run in the caller, where no timeout can stop them."""


_told = False  # the warning is said once per process


def run_inline(t: Runnable, input: Any, limit: float | None) -> Outcome:
    """Run a call in the caller, where no thread can start; say once that its timeout
    cannot be enforced, at the learner's line."""
    global _told
    if limit is not None and not _told:
        _told = True
        warnings.warn(worded("no thread can be started here (Pyodide, in the browser): tool "
                             "calls run in the loop, and their timeouts are not "
                             "enforced"), TimeoutsNotEnforcedWarning, stacklevel=_callers_level())
    set_deadline(limit)
    started = time.monotonic()
    try:
        content, is_error, outcome = _call_tool(t, input)
    finally:
        set_deadline(None)
    return Outcome(content, is_error, outcome, time.monotonic() - started)
