"""The token explorer: sliders for S, Δ and N over the cost curves of `looplab.tokens`."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import ipywidgets as W  # type: ignore[import-untyped]

from .. import tokens
from ..i18n import _
from .html import MONO, QUIET_PARTS, WIDGET_CLASS, esc, with_html
from .plots import MissingFigure, plot_cost_comparison

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["TokenExplorer", "token_explorer"]


def _png(figure: Figure) -> bytes:
    """The figure as PNG bytes, always the same size (and the same bytes for the same plot)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    return buffer.getvalue()


class TokenExplorer(W.VBox):  # type: ignore[misc]
    """Sliders for S, Δ and N, toggles for caching and compaction; redraws and prints totals.

    A slider redraws when it is let go, not while it is dragged, and the new plot replaces
    the old one in place (`.image`, same size), so the widget never collapses or jumps.
    `.figure` is the current figure and `.totals` the table under it (`.table`). Costs are in
    base-price input tokens (see `looplab.tokens`).
    """

    def __init__(
        self,
        S: int = 400,
        delta: int = 300,
        N: int = 10,
        *,
        caching: bool = False,
        compaction: bool = False,
        compact_every: int = 5,
        summary_tokens: int | None = None,
    ) -> None:
        self.S = _slider(S, 0, 5_000, 50, "S")
        self.delta = _slider(delta, 0, 3_000, 50, "Δ")
        self.N = _slider(N, 1, 50, 1, "N")
        box = W.Layout(width="auto")
        self.caching = W.Checkbox(
            value=caching, description=_("prompt caching"), indent=False, layout=box
        )
        self.compaction = W.Checkbox(
            value=compaction,
            description=_("compact every {n}").format(n=compact_every),
            indent=False,
            layout=box,
        )
        self.image = W.Image(format="png", layout=W.Layout(width="100%", max_width="700px"))
        self.table = W.HTML()
        super().__init__(
            [
                W.HBox([self.S, self.delta, self.N], layout=W.Layout(flex_flow="row wrap")),
                W.HBox([self.caching, self.compaction], layout=W.Layout(grid_gap="2em")),
                self.image,
                self.table,
            ]
        )
        self.add_class(WIDGET_CLASS)
        self.compact_every, self.summary_tokens = compact_every, summary_tokens
        self.figure: Any = None
        self.totals = ""
        for control in (self.S, self.delta, self.N, self.caching, self.compaction):
            control.observe(lambda _: self.redraw(), names="value")
        self.redraw()

    def series(self, N: int) -> dict[str, tokens.CostSeries]:
        return tokens.compare_costs(
            N,
            self.S.value,
            self.delta.value,
            caching=self.caching.value,
            compact_every=self.compact_every if self.compaction.value else None,
            summary_tokens=self.summary_tokens,
        )

    def _table(self, doubled: dict[str, tokens.CostSeries]) -> str:
        n = self.N.value
        head_n, head_2n = f"N={n}", f"2N={2 * n}"
        width = max(len(label) for label in doubled) + 2
        lines = [
            _("S={S:,}, Δ={delta:,}; input cost in base-price tokens").format(
                S=self.S.value, delta=self.delta.value),
            f"{'':<{width}}{head_n:>12}{head_2n:>12}{'2N / N':>9}",
        ]
        for label, s in doubled.items():
            at_n, at_2n = sum(s.billed[:n]), s.total
            ratio = f"{at_2n / at_n:.2f}" if at_n else "-"
            lines.append(f"{label:<{width}}{at_n:>12,.0f}{at_2n:>12,.0f}{ratio:>9}")
        return "\n".join(lines) + "\n"

    def redraw(self) -> None:
        """Draw the curves up to 2N and the table for the values the controls show."""
        doubled = self.series(2 * self.N.value)
        self.figure = plot_cost_comparison(doubled, mark_turn=self.N.value)
        self.totals = self._table(doubled)
        note = ""
        if isinstance(self.figure, MissingFigure):  # no matplotlib: the table, and why
            self.image.layout.display = "none"
            note = self.figure._repr_html_()
        else:
            self.image.value = _png(self.figure)
        self.table.value = (
            f'{QUIET_PARTS}{note}<pre style="{MONO} margin: 4px 0;">{esc(self.totals)}</pre>'
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return with_html(
            super()._repr_mimebundle_(**kwargs), f'<pre style="{MONO}">{esc(self.totals)}</pre>'
        )

    def __repr__(self) -> str:
        return (
            f"TokenExplorer(S={self.S.value}, delta={self.delta.value}, N={self.N.value},"
            f" caching={self.caching.value}, compaction={self.compaction.value})"
        )


token_explorer = TokenExplorer
"""The interactive S/Δ/N explorer: cost curves up to 2N turns and the N-vs-2N table."""


def _slider(value: int, low: int, high: int, step: int, name: str) -> Any:
    """A slider that redraws on release only (a drag would redraw at every step)."""
    return W.IntSlider(
        value=value,
        min=low,
        max=max(high, value),
        step=step,
        description=name,
        continuous_update=False,
        # three to a row on a laptop screen, so the plot stays in view under them
        layout=W.Layout(width="32%", min_width="170px"),
        style={"description_width": "1.5em"},
    )
