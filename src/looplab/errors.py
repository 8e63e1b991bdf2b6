"""looplab's one family of errors and warnings: `LooplabError` and `LooplabWarning`.

Every error looplab raises for a user to meet derives from `LooplabError`, under a name
that says what went wrong, and also from the built-in class a caller would expect where one
fits (`ValueError`, `FileNotFoundError`, ...). What the API or the transport said stays an
`anthropic` error; a bug in looplab surfaces as the bug it is.

`Mistake`s are the errors a user can put right: the message says what happened and what to
do next, so a notebook shows each as its one line, no traceback (IPython calls
`_render_traceback_` when an exception has one).
"""

from __future__ import annotations


class LooplabError(Exception):
    """Base of every error looplab raises for a user to meet."""


class LooplabWarning(UserWarning):
    """Base of every warning looplab issues."""


class Mistake(LooplabError):
    """A user's mistake, shown as one line: the message says what to do next."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class Misuse(Mistake, TypeError):
    """looplab was called in a way it cannot work (a wrong type, a finished run stepped)."""


class FinishedRun(Mistake, RuntimeError):
    """`AgentRun.step()` on a run that has stopped."""


class NotACassette(Mistake, ValueError):
    """The file is not a cassette looplab can read; the message says why, and where."""


class NoCassette(Mistake, FileNotFoundError):
    """There is no cassette at that path: record one first."""


class WouldReplace(Mistake, FileExistsError):
    """Recording there would replace a file the user may have paid for."""
