"""What a plot gives where matplotlib cannot be loaded: a note saying why the figure is
missing, shown where the figure would be. The browser edition (Pyodide) has no matplotlib."""

from __future__ import annotations

import sys

from ..i18n import _
from .html import esc


class MissingFigure:
    """A figure that could not be drawn; a notebook shows its note in the figure's place."""

    def __init__(self, error: ImportError) -> None:
        self.error = error
        if sys.platform == "emscripten":
            self.note = _("No figure here: matplotlib is not available in the browser "
                          "edition. Run this lesson in a local install of looplab to see it.")
        else:
            self.note = _("No figure here: matplotlib could not be loaded ({error}). Install "
                          "it (pip install matplotlib) to see the figure.").format(error=error)

    def __repr__(self) -> str:
        return self.note

    def _repr_html_(self) -> str:
        return f'<p class="looplab-missing-figure"><i>{esc(self.note)}</i></p>'
