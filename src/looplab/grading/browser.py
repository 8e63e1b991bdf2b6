"""The grader refuses to start in the browser edition (Pyodide): it starts a kernel for
each notebook, in processes of their own, and Pyodide can start neither processes nor
threads. It says so in one line, before anything that cannot load there is imported."""

from __future__ import annotations

import sys

from ..errors import LooplabError
from ..i18n import _


class GraderUnavailable(LooplabError, ImportError):
    """The grader cannot run in this Python; a notebook shows the reason without a
    traceback."""

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines instead
        return [f"{type(self).__name__}: {self}"]


def refuse_in_browser() -> None:
    """In Pyodide, stop: in a notebook with `GraderUnavailable`, in a command with exit
    status 2 and the reason on stderr. Elsewhere, do nothing."""
    if sys.platform != "emscripten":
        return
    why = _("looplab-grade cannot run here: it starts a kernel for each notebook, in "
            "processes of their own, and this Python (Pyodide, in the browser) can start "
            "neither processes nor threads. Grade in a local install of looplab.")
    ipython = sys.modules.get("IPython")
    if ipython is not None and ipython.get_ipython() is not None:
        raise GraderUnavailable(why)
    print(f"looplab-grade: {why}", file=sys.stderr)
    raise SystemExit(2)
