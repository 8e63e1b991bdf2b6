"""Plots of a run's input tokens, built on `matplotlib.figure.Figure` (no pyplot state).

Every function returns the figure: end a notebook cell with it and Jupyter shows it.
Where matplotlib cannot be loaded (the browser edition), each returns a `MissingFigure`
instead, which shows why the figure is missing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import ParamSpec

from .. import tokens
from ..core.result import RunResult, Turn
from ..i18n import N_, _
from .nofigure import MissingFigure

try:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure
    from matplotlib.ticker import MaxNLocator, StrMethodFormatter

    from .fonts import use_learner_font
except ImportError as e:  # the browser edition (Pyodide) has no matplotlib
    _missing: ImportError | None = e
else:
    _missing = None

__all__ = [
    "MissingFigure", "plot_cost_comparison", "plot_cumulative_input", "plot_input_per_request",
]

_P = ParamSpec("_P")


def _or_why_not(plot: Callable[_P, Figure]) -> Callable[_P, Figure | MissingFigure]:
    """`plot`, or where matplotlib could not be loaded, the note that says so."""

    @functools.wraps(plot)
    def plot_or_note(*args: _P.args, **kwargs: _P.kwargs) -> Figure | MissingFigure:
        return MissingFigure(_missing) if _missing is not None else plot(*args, **kwargs)

    return plot_or_note


# A budget this far above the curve would squash it; it is then left out by default.
_BUDGET_HEADROOM = 1.25


def _enable_notebook_display() -> None:
    """Make a returned `Figure` show as an image in IPython even if pyplot was never imported.

    IPython learns to draw figures only when the inline backend is loaded, which normally
    happens on `import matplotlib.pyplot`. These plots never touch pyplot, so register the
    same formatter, once, unless one is already there.
    """
    try:
        from IPython import get_ipython
        from IPython.core.pylabtools import select_figure_formats
    except ImportError:
        return
    shell = get_ipython()
    if getattr(shell, "kernel", None) is None:
        return  # not a Jupyter kernel (plain Python, a test): nothing can show an image
    formatters = shell.display_formatter.formatters
    for mime in ("image/png", "image/svg+xml", "image/jpeg", "application/pdf"):
        try:
            formatters[mime].lookup_by_type(Figure)
            return  # the user's (or the inline backend's) choice stands
        except KeyError:
            pass
    select_figure_formats(shell, {"png"})  # type: ignore[no-untyped-call]


def _new_axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    if ax is not None:
        fig = ax.get_figure()
        while isinstance(fig, SubFigure):
            fig = fig.get_figure()
        if not isinstance(fig, Figure):
            raise ValueError("ax must belong to a matplotlib Figure")
        return fig, ax
    _enable_notebook_display()
    fig = Figure(figsize=figsize, layout="constrained")
    return fig, fig.add_subplot()


def _turns_of(result_or_turns: RunResult | Sequence[Turn]) -> list[Turn]:
    if isinstance(result_or_turns, RunResult):
        return list(result_or_turns.turns)
    turns = list(result_or_turns)
    for t in turns:
        if not isinstance(t, Turn):
            raise TypeError(
                "the plots take a RunResult or a list of Turn, got a "
                f"{type(t).__name__} in the list; pass result or result.turns"
            )
    return turns


TURN_LABEL = N_("turn (one request to the model)")


def _integer_turns(ax: Axes, last: int) -> None:
    """Turns are counted: the axis spans turns 1 to `last`, with ticks at whole numbers only."""
    if last:
        ax.set_xlim(0.5, last + 0.5)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10], min_n_ticks=1))


@_or_why_not
def plot_cumulative_input(
    result_or_turns: RunResult | Sequence[Turn],
    *,
    formula: bool = True,
    ax: Axes | None = None,
    token_budget: int | None = None,
) -> Figure:
    """Input tokens per turn, on one axis: measured totals, the S/Δ formula, per-call bars.

    - Markers: `Turn.cumulative_input` (input plus both cache fields, summed).
    - Line (`formula=True`): `N·S + Δ·N(N−1)/2` with S and Δ fitted from the same turns.
    - Bars: what each request sent (`Turn.total_input`); the markers are their running total.
    - A dashed line at `token_budget`. When not given, a `RunResult`'s own
      `limits.token_budget` is drawn if it lies within 1.25× of the highest plotted value
      (a far-away budget would flatten the curve); pass a number to always draw one.
      The budget gate counts output tokens too, so the run may stop a bit below the line.

    The legend sits under the plot, where it hides nothing. Draws into `ax` when given
    (the legend then goes inside it), otherwise into a new figure.
    """
    turns = _turns_of(result_or_turns)
    own_figure = ax is None
    fig, ax = _new_axes(ax, (7.0, 4.5))
    numbers = [t.index for t in turns]
    measured = [t.cumulative_input for t in turns]
    each = [t.total_input for t in turns]
    ax.bar(numbers, each, width=0.6, color="#c9d7e8", label=_("input sent by each request"))
    ax.plot(numbers, measured, "o", color="#1f5fa8", label=_("measured: cumulative input"),
            zorder=3)
    top: float = max(measured, default=0)
    if formula and turns:
        S, delta = tokens.fit(turns)
        fitted = [tokens._cumulative_input(n, S, delta) for n in numbers]
        ax.plot(
            numbers,
            fitted,
            "-",
            color="#d9822b",
            label=_("formula N·S + Δ·N(N−1)/2, S={S:,.0f}, Δ={delta:,.0f}").format(
                S=S, delta=delta),
        )
        top = max(top, max(fitted))

    budget = _budget_to_draw(result_or_turns, token_budget, top)
    if budget is not None:
        ax.axhline(budget, linestyle="--", color="#b3261e",
                   label=_("token budget {budget:,}").format(budget=budget))
    _label_growth_axes(ax, numbers)
    _place_legend(fig, ax, inside=not own_figure)
    return use_learner_font(fig)


def _budget_to_draw(
    result_or_turns: RunResult | Sequence[Turn], token_budget: int | None, top: float
) -> int | None:
    """`token_budget`, or a run's own budget when it is near enough to the curve to read."""
    if token_budget is not None or not isinstance(result_or_turns, RunResult):
        return token_budget
    limit = result_or_turns.limits.token_budget
    return limit if limit is not None and limit <= top * _BUDGET_HEADROOM else None


def _label_growth_axes(ax: Axes, numbers: list[int]) -> None:
    ax.set_xlabel(_(TURN_LABEL))
    ax.set_ylabel(_("input tokens"))
    ax.set_title(_("Input tokens grow with the square of the turns"))
    _integer_turns(ax, max(numbers, default=0))
    if not numbers:
        ax.text(0.5, 0.5, _("no turns yet"), transform=ax.transAxes, ha="center", va="center")
    ax.set_ylim(bottom=0)
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def _place_legend(fig: Figure, ax: Axes, *, inside: bool) -> None:
    """Under the plot, where it hides nothing; inside the axes when they are someone else's."""
    handles, labels = ax.get_legend_handles_labels()
    if handles and not inside:
        fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize="small")
    elif handles:
        ax.legend(loc="upper left", fontsize="small")


@_or_why_not
def plot_cost_comparison(
    series: Mapping[str, tokens.CostSeries],
    *,
    ax: Axes | None = None,
    mark_turn: int | None = None,
    mark_round: int | None = None,
) -> Figure:
    """Cumulative input cost per turn, one line per strategy (from `tokens.compare_costs`).

    Costs are in base-price input tokens: a plain run's line is its cumulative input.
    `mark_turn` draws a dotted vertical line at that turn (e.g. N, to compare with 2N);
    `mark_round` is its older name.
    """
    mark = mark_turn if mark_turn is not None else mark_round
    fig, ax = _new_axes(ax, (7.0, 4.0))
    styles = {"plain": ("-", "#1f5fa8")}
    palette = ["#d9822b", "#2e7d32", "#7b1fa2", "#5d4037"]
    for i, (label, s) in enumerate(series.items()):
        style, color = styles.get(label, ("--", palette[i % len(palette)]))
        numbers = list(range(1, len(s.billed) + 1))
        ax.plot(numbers, s.cumulative_billed, style, color=color, marker=".", label=str(label))
    if mark is not None:
        ax.axvline(mark, linestyle=":", color="#6b6b6b", label=_("turn {n}").format(n=mark))
    ax.set_xlabel(_(TURN_LABEL))
    ax.set_ylabel(_("cumulative input cost\n(base-price input tokens)"))
    ax.set_title(_("What the input costs: plain, cached, compacted"))
    _integer_turns(ax, max((len(s.billed) for s in series.values()), default=0))
    ax.set_ylim(bottom=0)
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    if series:
        ax.legend(loc="upper left", fontsize="small")
    return use_learner_font(fig)


@_or_why_not
def plot_input_per_request(
    runs: Mapping[str, RunResult | Sequence[Turn]],
    *,
    threshold: int | None = None,
    ax: Axes | None = None,
    cumulative: bool = False,
) -> Figure:
    """What each request sent (`Turn.total_input`), one line per run, labelled by its key;
    a dashed grey line at `threshold` (e.g. the size at which a run compacts its history).
    With `cumulative=True`, each run's running total instead (`Turn.cumulative_input`,
    what a token budget counts), and `threshold` is the budget."""
    fig, ax = _new_axes(ax, (7.0, 3.2))
    for marker, (label, run) in zip("os^vD", runs.items(), strict=False):
        turns = _turns_of(run)
        sent = [t.cumulative_input if cumulative else t.total_input for t in turns]
        ax.plot([t.index for t in turns], sent, f"{marker}-", label=str(label))
    _integer_turns(ax, max((len(_turns_of(run)) for run in runs.values()), default=0))
    if threshold is not None:
        ax.axhline(threshold, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel(_("request"))
    ax.set_ylabel(_("input tokens") if cumulative else _("input tokens sent"))
    ax.set_title(_("Input tokens grow with the square of the turns") if cumulative
                 else _("What each request sends"))
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    if runs:
        ax.legend(fontsize="small")
    return use_learner_font(fig)
