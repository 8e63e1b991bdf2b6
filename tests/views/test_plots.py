"""The plots, read back as data (lines, bars, labels), never as pixels."""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Iterator

import pytest
from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.text import Text

import looplab
from looplab import Limits, RunResult, Turn
from looplab.tokens import compare_costs, per_call_input
from looplab.views import fonts
from looplab.views.plots import (
    plot_cost_comparison,
    plot_cumulative_input,
    plot_input_per_request,
)


def make_turns(sizes: list[int]) -> list[Turn]:
    turns, total = [], 0
    for n, size in enumerate(sizes, start=1):
        total += size
        turns.append(
            Turn(
                index=n,
                messages_sent=2 * n - 1,
                input_tokens=size,
                output_tokens=40,
                cache_creation_input_tokens=0,
                cache_read_input_tokens=0,
                cumulative_input=total,
                stop_reason="tool_use",
                content=[],
            )
        )
    return turns


ARTICLE = [int(per_call_input(n, 400, 300)) for n in range(1, 11)]


def line(ax: Axes, label_start: str) -> Line2D:
    found = [ln for ln in ax.get_lines() if ln.get_label().startswith(label_start)]
    assert len(found) == 1, [ln.get_label() for ln in ax.get_lines()]
    return found[0]


def test_measured_markers_formula_line_and_bars_on_one_axis() -> None:
    fig = plot_cumulative_input(make_turns(ARTICLE))
    assert isinstance(fig, Figure)
    (ax,) = fig.axes  # one y-axis, one unit: no twin axis
    measured = line(ax, "measured")
    assert list(measured.get_xdata()) == list(range(1, 11))
    assert list(measured.get_ydata())[-1] == 17_500
    assert measured.get_linestyle() == "None" and measured.get_marker() == "o"
    formula = line(ax, "formula")
    assert formula.get_label() == "formula N·S + Δ·N(N−1)/2, S=400, Δ=300"
    assert list(formula.get_ydata()) == pytest.approx(list(measured.get_ydata()))
    assert [p.get_height() for p in ax.patches] == ARTICLE
    assert ax.get_xlabel() == "turn (one request to the model)"
    assert ax.get_ylabel() == "input tokens"
    assert "round" not in ax.get_title()


def test_the_legend_sits_under_the_plot_and_hides_no_line() -> None:
    fig = plot_cumulative_input(result_of(make_turns(ARTICLE), 20_000))
    (ax,) = fig.axes
    assert ax.get_legend() is None
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == [
        "measured: cumulative input",
        "formula N·S + Δ·N(N−1)/2, S=400, Δ=300",
        "token budget 20,000",
        "input sent by each request",
    ]
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    plot_area = ax.get_window_extent(renderer)
    assert not legend.get_window_extent(renderer).overlaps(plot_area)


def visible_ticks(ax: Axes) -> list[float]:
    low, high = ax.get_xlim()
    return [t for t in ax.get_xticks() if low <= t <= high]


@pytest.mark.parametrize("n", [1, 2, 5, 13, 20, 45])
def test_turns_get_whole_number_ticks_on_every_plot(n: int) -> None:
    sizes = [int(per_call_input(i, 400, 300)) for i in range(1, n + 1)]
    for fig in (
        plot_cumulative_input(make_turns(sizes)),
        plot_cost_comparison(compare_costs(n, 400, 300), mark_turn=n),
        plot_input_per_request({"a run": make_turns(sizes)}),
        plot_input_per_request({"a run": make_turns(sizes)}, cumulative=True),
    ):
        ax = fig.axes[0]
        ticks = visible_ticks(ax)
        assert ticks and all(float(t).is_integer() and 1 <= t <= n for t in ticks), ticks
        assert ax.get_xlabel() in ("turn (one request to the model)", "request")


def test_formula_can_be_left_out() -> None:
    fig = plot_cumulative_input(make_turns(ARTICLE), formula=False)
    assert [ln.get_label() for ln in fig.axes[0].get_lines()] == ["measured: cumulative input"]


def test_formula_is_fitted_not_copied() -> None:
    # least squares over x = 0..3: slope 1520 / 5 = 304, intercept 845 − 1.5 × 304 = 389
    noisy = [400, 650, 1050, 1280]
    fig = plot_cumulative_input(make_turns(noisy))
    formula = line(fig.axes[0], "formula")
    measured = line(fig.axes[0], "measured")
    assert list(formula.get_ydata()) != list(measured.get_ydata())
    assert formula.get_label() == "formula N·S + Δ·N(N−1)/2, S=389, Δ=304"


def result_of(turns: list[Turn], budget: int | None) -> RunResult:
    return RunResult(status="done", messages=[], turns=turns, limits=Limits(token_budget=budget))


def budget_lines(fig: Figure) -> list[Line2D]:
    return [ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("token budget")]


def test_budget_from_the_run_when_in_range() -> None:
    fig = plot_cumulative_input(result_of(make_turns(ARTICLE), 20_000))
    (budget,) = budget_lines(fig)
    assert budget.get_label() == "token budget 20,000"
    assert list(budget.get_ydata()) == [20_000, 20_000]


def test_far_away_budget_is_left_out_unless_asked_for() -> None:
    # 17,500 plotted; 1.25 × 17,500 = 21,875 is the most that is drawn by default
    assert budget_lines(plot_cumulative_input(result_of(make_turns(ARTICLE), 21_875)))
    assert not budget_lines(plot_cumulative_input(result_of(make_turns(ARTICLE), 21_876)))
    assert not budget_lines(plot_cumulative_input(result_of(make_turns(ARTICLE), 200_000)))
    forced = plot_cumulative_input(make_turns(ARTICLE), token_budget=200_000)
    assert list(budget_lines(forced)[0].get_ydata()) == [200_000, 200_000]


def test_draws_into_given_axes() -> None:
    fig = Figure()
    ax = fig.add_subplot()
    assert plot_cumulative_input(make_turns(ARTICLE[:3]), ax=ax) is fig
    assert line(ax, "measured").get_ydata()[-1] == 400 + 700 + 1000


def test_no_turns_gives_an_empty_plot() -> None:
    fig = plot_cumulative_input(RunResult(status="api_error", messages=[]))
    assert [t.get_text() for t in fig.axes[0].texts] == ["no turns yet"]


def test_one_turn_plots_a_flat_formula() -> None:
    fig = plot_cumulative_input(make_turns([812]))
    assert line(fig.axes[0], "formula").get_label().endswith("S=812, Δ=0")


def test_rejects_what_is_not_a_turn() -> None:
    with pytest.raises(TypeError, match="got a dict in the list; pass result or result.turns"):
        plot_cumulative_input([{"index": 1}])  # type: ignore[list-item]


def test_repr_is_deterministic() -> None:
    # the text/plain a notebook stores for the returned figure
    assert repr(plot_cumulative_input(make_turns(ARTICLE))) == "<Figure size 700x450 with 1 Axes>"


def test_cost_comparison_lines() -> None:
    series = compare_costs(10, 400, 300, compact_every=4)
    fig = plot_cost_comparison(series)
    ax = fig.axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == list(series)
    assert line(ax, "plain").get_ydata()[-1] == 17_500
    cached = ax.get_lines()[1]
    assert list(cached.get_ydata()) == pytest.approx(list(series["caching"].cumulative_billed))


def test_cost_comparison_marks_a_turn_under_both_names() -> None:
    series = compare_costs(10, 400, 300)
    for fig in (
        plot_cost_comparison(series, mark_turn=5),
        plot_cost_comparison(series, mark_round=5),
    ):
        mark = fig.axes[0].get_lines()[-1]
        assert mark.get_label() == "turn 5" and list(mark.get_xdata()) == [5, 5]


def test_no_pyplot_state() -> None:
    from matplotlib._pylab_helpers import Gcf

    before = Gcf.get_num_fig_managers()
    plot_cumulative_input(make_turns(ARTICLE))
    plot_cost_comparison(compare_costs(3, 400, 300))
    assert Gcf.get_num_fig_managers() == before  # pyplot never saw these figures

def test_input_per_request_draws_each_run_and_the_threshold() -> None:
    turns = make_turns(ARTICLE)
    fig = plot_input_per_request({"plain": turns, "short": turns[:4]}, threshold=2_500)
    [ax] = fig.axes
    plain, short, threshold = ax.get_lines()
    assert list(plain.get_ydata()) == [t.total_input for t in turns]
    assert list(short.get_xdata()) == [1, 2, 3, 4]
    assert list(threshold.get_ydata()) == [2_500, 2_500]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["plain", "short"]
    assert ax.get_xlabel() == "request" and ax.get_ylabel() == "input tokens sent"


def test_input_per_request_cumulative_draws_each_runs_running_total() -> None:
    turns = make_turns(ARTICLE)
    fig = plot_input_per_request({"gate": turns[:4], "budget": turns}, threshold=20_000,
                                 cumulative=True)
    [ax] = fig.axes
    gate, budget, line = ax.get_lines()
    assert list(budget.get_ydata()) == [t.cumulative_input for t in turns]
    assert list(gate.get_ydata()) == [t.cumulative_input for t in turns[:4]]
    assert list(line.get_ydata()) == [20_000, 20_000]
    assert ax.get_ylabel() == "input tokens"
    assert ax.get_title() == "Input tokens grow with the square of the turns"


# -- in Chinese: every word of a plot is Chinese, drawn in a font that has its glyphs ------
# matplotlib's own fonts have no Chinese glyphs and draw a box for each; looplab brings Noto
# Sans CJK SC from PyPI and registers it. Checked on the text objects and on a real draw, in
# which matplotlib warns about any glyph no font of the family list has.

HAN = re.compile(r"[\u4e00-\u9fff]")
# The words a Chinese plot keeps in English: the API's and the formula's.
KEPT = {"token", "N", "S"}


@pytest.fixture
def _chinese() -> Iterator[None]:
    looplab.set_language("zh-CN")
    yield
    looplab.set_language(None)


def chinese_figures() -> list[Figure]:
    run = RunResult(status="done", messages=[], turns=make_turns(ARTICLE),
                    limits=Limits(token_budget=20_000))
    return [plot_cumulative_input(run),
            plot_cost_comparison(compare_costs(20, 400, 300, compact_every=5),
                                 mark_turn=10),
            plot_input_per_request({"不压缩": run, "压缩": run.turns[:5]}, threshold=2_500),
            plot_input_per_request({"闸门": run.turns[:5], "任务预算": run}, threshold=20_000,
                                   cumulative=True)]


def words(fig: Figure) -> list[str]:
    texts = [t.get_text() for t in fig.findobj(Text)]
    return [t for t in texts if t and not re.fullmatch(r"[\d,.\s−-]*", t)]


@pytest.mark.usefixtures("_chinese")
def test_every_label_title_and_legend_entry_is_chinese() -> None:
    for fig in chinese_figures():
        shown = words(fig)
        assert len(shown) >= 5, shown
        for text in shown:
            english = set(re.findall(r"[A-Za-z]{2,}", text)) - KEPT
            assert HAN.search(text) and not english, text


@pytest.mark.usefixtures("_chinese")
def test_the_registered_font_has_every_glyph_the_plots_use() -> None:
    # Drawing a Chinese figure is what registers the font (once per process): this test
    # may be the first of its worker to draw one.
    figures = chinese_figures()
    cjk = font_manager.get_font(font_manager.findfont(
        FontProperties(family=fonts.CJK_FAMILY), fallback_to_default=False))
    assert cjk.family_name == fonts.CJK_FAMILY
    for fig in figures:
        for text in fig.findobj(Text):
            family = text.get_fontfamily()
            found = [font_manager.get_font(font_manager.findfont(FontProperties(family=f)))
                     for f in family]
            for char in set(text.get_text()) - {"\n", " "}:
                assert any(f.get_char_index(ord(char)) for f in found), (char, family)


@pytest.mark.usefixtures("_chinese")
def test_drawing_a_chinese_plot_misses_no_glyph() -> None:
    for fig in chinese_figures():
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "Glyph ... missing from font(s)" fails here
            fig.savefig(io.BytesIO(), format="png")


@pytest.mark.usefixtures("_chinese")
def test_english_plots_do_not_load_the_cjk_font() -> None:
    looplab.set_language("en")
    assert fonts.families() == ["DejaVu Sans"]
    assert "Input tokens grow" in " ".join(words(chinese_figures()[0]))
