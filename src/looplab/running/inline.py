"""Running a tool call in the caller, where no thread can start (Pyodide, in the browser):
the calls of a turn run one after another, and nothing can stop one at its timeout. A
warning says so, at the line of the learner's code that started the run."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable

from .deadline import set_deadline
from .words import worded

__all__ = ["TimeoutsNotEnforcedWarning", "run_inline"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _callers_level() -> int:
    """The `stacklevel` of the first frame outside looplab: the code that started the run
    (`warnings.warn(skip_file_prefixes=...)` does this from Python 3.12 on)."""
    frame, level = sys._getframe(2), 2  # level n is sys._getframe(n): 1 is the one warning
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


class TimeoutsNotEnforcedWarning(RuntimeWarning):
    """Tool calls run one after another in the caller, where no timeout can stop them."""


_told = False  # the warning is said once per process: the first call with a timeout


def run_inline(job: Callable[[], None], limit: float | None) -> None:
    """Run a call in the caller, where no thread can start; say once (the first time a
    call has a timeout) that timeouts cannot be enforced, at the learner's line."""
    global _told
    if limit is not None and not _told:
        _told = True
        warnings.warn(worded("no thread can be started here (Pyodide, in the browser): tool "
                             "calls run one after another, and their timeouts are not "
                             "enforced"), TimeoutsNotEnforcedWarning, stacklevel=_callers_level())
    try:
        job()
    finally:
        set_deadline(None)
