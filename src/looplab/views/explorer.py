"""The token explorer: sliders for S, Δ and N over the cost curves of `looplab.core.tokens`."""

from __future__ import annotations

from typing import Any

import ipywidgets as W  # type: ignore[import-untyped]

from ..core import tokens
from ..core.i18n import _
from .html import MONO, esc, with_html
from .plots import plot_cost_comparison

__all__ = ["TokenExplorer", "token_explorer"]


class TokenExplorer(W.VBox):  # type: ignore[misc]
    """Sliders for S, Δ and N, toggles for caching and compaction; redraws and prints totals.

    `.figure` is the current figure and `.totals` the printed table (both also appended to
    `.out`). Costs are in base-price input tokens (see `looplab.core.tokens`).
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
        self.S = W.IntSlider(value=S, min=0, max=max(5_000, S), step=50, description="S")
        self.delta = W.IntSlider(
            value=delta, min=0, max=max(3_000, delta), step=50, description="Δ"
        )
        self.N = W.IntSlider(value=N, min=1, max=max(50, N), description="N")
        self.caching = W.Checkbox(value=caching, description=_("prompt caching"))
        self.compaction = W.Checkbox(
            value=compaction, description=_("compact every {n}").format(n=compact_every))
        self.out = W.Output()
        super().__init__(
            [
                W.HBox([self.S, self.delta, self.N]),
                W.HBox([self.caching, self.compaction]),
                self.out,
            ]
        )
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

        doubled = self.series(2 * self.N.value)
        self.figure = plot_cost_comparison(doubled, mark_round=self.N.value)
        self.totals = self._table(doubled)
        self.out.outputs = ()
        self.out.append_display_data(self.figure)
        self.out.append_stdout(self.totals)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return with_html(
            super()._repr_mimebundle_(**kwargs), f'<pre style="{MONO}">{esc(self.totals)}</pre>'
        )

    def __repr__(self) -> str:
        return (
            f"TokenExplorer(S={self.S.value}, delta={self.delta.value}, N={self.N.value},"
            f" caching={self.caching.value}, compaction={self.compaction.value})"
        )


def token_explorer(
    S: int = 400,
    delta: int = 300,
    N: int = 10,
    *,
    caching: bool = False,
    compaction: bool = False,
    compact_every: int = 5,
    summary_tokens: int | None = None,
) -> TokenExplorer:
    """The interactive S/Δ/N explorer: cost curves up to 2N rounds and the N-vs-2N table."""
    return TokenExplorer(
        S,
        delta,
        N,
        caching=caching,
        compaction=compaction,
        compact_every=compact_every,
        summary_tokens=summary_tokens,
    )
