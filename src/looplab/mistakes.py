"""Errors that a user can put right: a notebook shows each as its one line, no traceback.

The message already says what happened and what to do next, so a traceback (which points
into looplab's own code) would only hide it. IPython shows an exception through its
`_render_traceback_` when it has one; everywhere else these are ordinary exceptions, and
each is also the built-in one a caller would expect (`ValueError`, `FileExistsError`, ...).
"""

from __future__ import annotations


class Mistake(Exception):
    """Base of looplab's errors for a user's mistake."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class NotACassette(Mistake, ValueError):
    """The file is not a cassette looplab can read; the message says why, and where."""


class NoCassette(Mistake, FileNotFoundError):
    """There is no cassette at that path: record one first."""


class WouldReplace(Mistake, FileExistsError):
    """Recording there would replace a file the user may have paid for."""
