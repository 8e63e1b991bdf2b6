"""`StreamView`: a reply's text shown as its pieces arrive, the way a chat window shows it.

    view = StreamView()
    display(view)
    ...                      # for each text_delta of the stream:
    view.add(event.delta.text)
    view.done("time to first token 0.62 s, whole reply 2.10 s")

Like the other widgets it only sets its parts' values, so it behaves the same in
JupyterLab, under nbval and in a plain Python test; saved with the lesson's widget state,
a static page shows the text as it stood at the end.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as W  # type: ignore[import-untyped]

from ..i18n import _
from .html import FONT, NO_WORD_BREAK, QUIET_PARTS, WIDGET_CLASS, esc, with_html

__all__ = ["StreamView"]

_BOX = f"{FONT} {NO_WORD_BREAK} padding: 6px; border: 1px solid #d0d7de; min-height: 3em;"
_CURSOR = "▌"


class StreamView(W.VBox):  # type: ignore[misc]
    """The text of one streamed reply: `add` each piece as it arrives, `done` at the end.

    `.pieces` holds the pieces in order; `.status.value` is the line under the text."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.text = W.HTML(self._html(_CURSOR))
        self.status = W.HTML(self._line(_("waiting for the first token…")))
        super().__init__([self.text, self.status])
        self.add_class(WIDGET_CLASS)

    def add(self, piece: str) -> None:
        """Show one more piece of text (a `text_delta`), at once."""
        self.pieces.append(piece)
        self.text.value = self._html("".join(self.pieces) + _CURSOR)

    def done(self, note: str = "") -> None:
        """The reply is complete: drop the cursor and say `note` under the text."""
        self.text.value = self._html("".join(self.pieces))
        self.status.value = self._line(note)

    def static_html(self) -> str:
        return f"{self.text.value}{self.status.value}"

    @staticmethod
    def _html(text: str) -> str:
        return f'{QUIET_PARTS}<div style="{_BOX}">{esc(text)}</div>'

    @staticmethod
    def _line(note: str) -> str:
        return f'<div style="{FONT} color: #57606a;">{esc(note)}</div>'

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return with_html(super()._repr_mimebundle_(**kwargs), self.static_html())

    def __repr__(self) -> str:
        return f"StreamView({len(self.pieces)} pieces)"
