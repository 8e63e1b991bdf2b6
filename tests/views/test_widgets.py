"""The widgets, driven without a kernel: set sliders, click buttons, read the HTML/Output."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import looplab
from looplab import (
    FakeClock,
    GateState,
    Limits,
    RunResult,
    ScriptedModel,
    ToolCall,
    Turn,
    call,
    fake_client,
    say,
    think,
)
from looplab.tokens import cumulative_input
from looplab.views.explorer import token_explorer
from looplab.views.html import render_run_html, render_turn_html
from looplab.views.widgets import LiveRun, TurnViewer

RED = "#b3261e"


def gates(turns: int, tokens: int, *, tripped: str | None = None) -> GateState:
    return GateState(
        turns=turns,
        max_turns=3,
        tokens_used=tokens,
        token_budget=10_000,
        elapsed_s=1.5 * turns,
        timeout_s=300,
        repeats=1,
        max_repeats=3,
        tripped=tripped,
    )


def turn(index: int, sent: int, stop_reason: str, content: list[dict[str, Any]], **kw: Any) -> Turn:
    size = 400 + 300 * (index - 1)
    return Turn(
        index=index,
        messages_sent=sent,
        input_tokens=size,
        output_tokens=40,
        cache_creation_input_tokens=0,
        cache_read_input_tokens=0,
        cumulative_input=int(cumulative_input(index, 400, 300)),
        stop_reason=stop_reason,
        content=content,
        **kw,
    )


def sample_run(*, tripped: bool = False) -> RunResult:
    first = turn(
        1,
        1,
        "tool_use",
        [
            say("I'll run the tests and read the log."),
            call("run_tests", id="toolu_A", module="login"),
            call("read_file", id="toolu_B", path="missing.log"),
        ],
        # listed in the opposite order: pairing must go by id, not by position
        tool_calls=[
            ToolCall("toolu_B", "read_file", {"path": "missing.log"}, "no such file", True),
            ToolCall("toolu_A", "run_tests", {"module": "login"}, "1 failed, 2 passed"),
        ],
        gates=gates(1, 440),
    )
    second = turn(
        2,
        3,
        "tool_use",
        [think("The lockout counter resets too early."), call("run_tests", id="toolu_C")],
        tool_calls=[ToolCall("toolu_C", "run_tests", {}, "1 failed, 2 passed")],
        gates=gates(2, 1180),
    )
    third = turn(
        3,
        5,
        "end_turn" if not tripped else "tool_use",
        [say("The <lockout> bug: `attempts` resets on every call.")],
        gates=gates(3, 2220, tripped="max_turns" if tripped else None),
    )
    status = "max_turns" if tripped else "done"
    detail = "3 of 3 turns used" if tripped else ""
    return RunResult(status=status, messages=[], turns=[first, second, third], detail=detail)


def pairs(page: str) -> list[tuple[str, str]]:
    """(tool_use id, tool_result's tool_use_id) for each pair, in order."""
    found = []
    for chunk in page.split('<div class="looplab-pair"')[1:]:
        use = re.search(r'class="looplab-tool-use" data-id="([^"]+)"', chunk)
        result = re.search(r'data-tool-use-id="([^"]+)"', chunk)
        assert use is not None and result is not None
        assert use.start() < result.start()  # tool_use on the left, its result on the right
        found.append((use.group(1), result.group(1)))
    return found


# -- TurnViewer ---------------------------------------------------------------------------


def test_viewer_starts_at_turn_one() -> None:
    viewer = TurnViewer(sample_run())
    assert viewer.slider.value == 1 and viewer.slider.max == 3
    assert 'data-turn="1"' in viewer.html.value
    assert ">tool_use</span>" in viewer.html.value
    assert viewer.prev_button.disabled and not viewer.next_button.disabled
    assert "done</span> 3 turns" in viewer.header.value


def test_slider_and_buttons_move_between_turns() -> None:
    viewer = TurnViewer(sample_run())
    viewer.slider.value = 3
    assert 'data-turn="3"' in viewer.html.value
    assert 'class="looplab-stop-reason"' in viewer.html.value
    assert ">end_turn</span>" in viewer.html.value
    assert viewer.next_button.disabled
    viewer.next_button.click()  # already at the end: stays
    assert viewer.slider.value == 3
    viewer.prev_button.click()
    viewer.prev_button.click()
    assert viewer.slider.value == 1 and 'data-turn="1"' in viewer.html.value
    viewer.next_button.click()
    assert viewer.turn is not None and viewer.turn.index == 2


def test_every_turn_is_a_page_that_the_slider_picks_in_the_browser() -> None:
    result = sample_run()
    viewer = TurnViewer(result)
    expected, previous = [], None
    for t in result.turns:
        expected.append(render_turn_html(t, previous=previous))
        previous = t
    assert [page.value for page in viewer.pages.children[1:]] == expected
    # a browser-side link: works in a saved lesson with no kernel behind it
    assert viewer._link.source == (viewer.slider, "value")
    assert viewer._link.target == (viewer.pages, "selected_index")
    viewer.slider.value = 3
    assert viewer.pages.selected_index == 3 and viewer.html is viewer.pages.children[3]


def test_each_tool_use_sits_next_to_its_result() -> None:
    page = TurnViewer(sample_run()).html.value
    assert pairs(page) == [("toolu_A", "toolu_A"), ("toolu_B", "toolu_B")]
    first, second = page.split('<div class="looplab-pair"')[1:]
    assert "1 failed, 2 passed" in first and "no such file" not in first
    assert "no such file" in second
    # the same colour marks both halves of a pair, a different one the next pair
    assert "border-left: 4px solid #1f5fa8" in first
    assert "border-left: 4px solid #d9822b" in second


def test_is_error_result_is_red() -> None:
    page = TurnViewer(sample_run()).html.value
    error = re.search(r'<div class="looplab-tool-result looplab-error"[^>]*>', page)
    assert error is not None
    assert 'data-tool-use-id="toolu_B"' in error.group(0)
    assert f"color: {RED};" in error.group(0)
    assert ">is_error</span>" in page
    ok = re.search(r'<div class="looplab-tool-result"[^>]*>', page)
    assert ok is not None and 'data-tool-use-id="toolu_A"' in ok.group(0)
    assert RED not in ok.group(0)


def test_what_was_sent_and_how_the_history_grew() -> None:
    viewer = TurnViewer(sample_run())
    assert "sent 1 message · 400 input tokens · first request · 40 output tokens" in (
        viewer.html.value
    )
    viewer.slider.value = 2
    assert (
        "sent 3 messages · 700 input tokens · history grew by +300 since turn 1 · 40 output tokens"
    ) in viewer.html.value


def test_cache_fields_are_shown_and_counted() -> None:
    t = turn(1, 1, "end_turn", [say("hi")])
    t.input_tokens, t.cache_creation_input_tokens, t.cache_read_input_tokens = 10, 300, 90
    assert "400 input tokens (input 10 · cache write 300 · cache read 90)" in render_turn_html(t)


def test_thinking_is_collapsed() -> None:
    viewer = TurnViewer(sample_run())
    viewer.slider.value = 2
    assert (
        '<details class="looplab-thinking"><summary>thinking (37 characters)</summary>'
        in viewer.html.value
    )


def test_gate_meters_against_limits() -> None:
    page = TurnViewer(sample_run()).html.value
    assert ">turns 1 / 3</span>" in page
    assert ">tokens 440 / 10,000</span>" in page
    assert ">time 1.5 s / 300 s</span>" in page
    assert ">repeats 1 / 3</span>" in page
    assert "width: 33%" in page  # 1 of 3 turns
    assert "looplab-tripped" not in page


def test_tripped_gate_is_highlighted() -> None:
    viewer = TurnViewer(sample_run(tripped=True))
    viewer.show(3)
    tripped = re.findall(
        r'<div class="looplab-gate looplab-tripped" data-gate="(\w+)"', viewer.html.value
    )
    assert tripped == ["turns"]
    assert ">turns 3 / 3 · tripped</span>" in viewer.html.value
    assert "stopped: max_turns</span> 3 turns — 3 of 3 turns used" in viewer.header.value


def test_a_gate_that_is_off_says_so() -> None:
    t = turn(1, 1, "end_turn", [say("hi")], gates=gates(1, 440))
    assert t.gates is not None
    t.gates.token_budget = None
    assert ">tokens 440 (gate off)</span>" in render_turn_html(t)


def test_truncated_tool_use_is_shown_as_not_run() -> None:
    t = turn(1, 1, "max_tokens", [call("write_file", id="toolu_T", path="a.py")])
    page = render_turn_html(t)
    assert ">max_tokens</span>" in page
    assert "<i>not run (stop_reason max_tokens)</i>" in page


def test_blocked_repeat_is_labelled() -> None:
    blocked = ToolCall("toolu_R", "run_tests", {}, "not run: identical call made 3 times", True)
    blocked.outcome = "blocked"
    t = turn(1, 1, "tool_use", [call("run_tests", id="toolu_R")], tool_calls=[blocked])
    assert "<b>tool_result (blocked: not run)</b> for <code>toolu_R</code>" in render_turn_html(t)


def test_long_results_scroll_in_a_capped_box_and_break_only_at_spaces() -> None:
    long = "word " * 1_000 + "x" * 500
    t = turn(
        1,
        1,
        "tool_use",
        [say("a " * 500), call("read_file", id="toolu_L")],
        tool_calls=[ToolCall("toolu_L", "read_file", {}, long)],
    )
    page = render_turn_html(t)
    assert page.count(long) == 1  # all of it, once
    pres = re.findall(r'<pre style="([^"]*)">', page)
    assert len(pres) == 2  # the tool_use input and the tool_result
    for style in pres:
        assert "max-height: 16em;" in style and "overflow: auto;" in style
    text = re.search(r'<div class="looplab-text" style="([^"]*)">', page)
    assert text is not None
    for style in [*pres, text.group(1)]:
        # JupyterLab's `pre { word-break: break-all }` must not win: break at spaces only
        assert "white-space: pre-wrap; word-break: normal; overflow-wrap: normal;" in style


def test_the_columns_of_a_pair_stack_when_narrow() -> None:
    page = render_turn_html(sample_run().turns[0])
    pair = re.search(r'<div class="looplab-pair" style="([^"]*)">', page)
    assert pair is not None
    assert "grid-template-columns: repeat(auto-fit, minmax(min(100%, 24em), 1fr));" in pair.group(1)
    halves = re.findall(r'<div class="looplab-tool-(?:use|result)[^>]*style="([^"]*)"', page)
    assert len(halves) == 4 and all(h.startswith("min-width: 0;") for h in halves)


def test_gate_meters_come_before_the_blocks() -> None:
    page = render_turn_html(sample_run().turns[0])
    assert page.index('class="looplab-gates"') < page.index('class="looplab-blocks"')


def test_text_is_escaped() -> None:
    page = render_run_html(sample_run())
    assert "The &lt;lockout&gt; bug" in page
    assert "<lockout>" not in page


@settings(max_examples=50, deadline=None)
@given(st.text())
def test_any_text_is_escaped(text: str) -> None:
    t = turn(1, 1, "end_turn", [say(text)])
    assert html.escape(text, quote=True) in render_turn_html(t)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_results_pair_by_id_in_any_order(answered: list[bool], rnd: Any) -> None:
    ids = [f"toolu_{i:02d}" for i in range(len(answered))]
    calls = [
        ToolCall(i, "t", {}, f"result of {i}") for i, a in zip(ids, answered, strict=True) if a
    ]
    rnd.shuffle(calls)
    t = turn(1, 1, "tool_use", [call("t", id=i) for i in ids], tool_calls=calls)
    page = render_turn_html(t)
    chunks = page.split('<div class="looplab-pair"')[1:]
    assert len(chunks) == len(ids)
    for i, a, chunk in zip(ids, answered, chunks, strict=True):
        assert f'data-id="{i}"' in chunk
        if a:
            assert f'data-tool-use-id="{i}"' in chunk and f"result of {i}" in chunk
        else:
            assert "<i>not run (stop_reason tool_use)</i>" in chunk and "result of" not in chunk


def test_no_turns() -> None:
    viewer = TurnViewer(RunResult(status="api_error", messages=[], detail="APIConnectionError"))
    assert "<i>no turns yet</i>" in viewer.html.value
    assert viewer.prev_button.disabled and viewer.next_button.disabled and viewer.slider.disabled
    assert repr(viewer) == "TurnViewer(turn 0 of 0, status='api_error')"


def test_static_html_and_text_repr() -> None:
    result = sample_run()
    viewer = TurnViewer(result)
    bundle = viewer._repr_mimebundle_()
    assert bundle["text/plain"] == "TurnViewer(turn 1 of 3, status='done')"
    assert bundle["text/html"] == render_run_html(result)
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/html"].count('class="looplab-turn"') == 3


# -- LiveRun on the fake --------------------------------------------------------------------


def get_weather(city: str) -> str:
    """Today's weather in a city."""
    if city == "Atlantis":
        raise ValueError("no such city")
    return f"{city}: 24°C, sunny"


SCRIPT = [
    [say("Checking both."), call("get_weather", city="Rome"), call("get_weather", city="Atlantis")],
    [call("get_weather", city="Paris")],
    say("Rome 24°C, Paris 24°C; Atlantis does not exist."),
]


def live(**kw: Any) -> LiveRun:
    return LiveRun(
        lambda: fake_client(ScriptedModel(SCRIPT)),
        "What's the weather in Rome and Atlantis?",
        [get_weather],
        kw.pop("limits", Limits()),
        clock=FakeClock(),
        **kw,
    )


def log(widget: LiveRun) -> str:
    return "".join(o["text"] for o in widget.out.outputs if o["output_type"] == "stream")


def test_step_shows_each_new_turn() -> None:
    w = live()
    assert repr(w) == "LiveRun(turns=0, status='not started')"
    assert "<i>no turns yet</i>" in w.viewer.html.value
    w.step_button.click()
    assert repr(w) == "LiveRun(turns=1, status='running')"
    assert 'data-turn="1"' in w.viewer.html.value
    assert [i for i, _ in pairs(w.viewer.html.value)] == [
        b["id"] for b in w.run.turns[0].content if b["type"] == "tool_use"
    ]
    assert "ValueError: no such city" in w.viewer.html.value
    w.step_button.click()
    assert w.viewer.slider.value == 2 and 'data-turn="2"' in w.viewer.html.value
    assert "Paris: 24°C, sunny" in w.viewer.html.value


def test_a_growing_run_reuses_its_pages() -> None:
    w = live()
    w.step()
    first = w.viewer.pages.children[1]
    w.step()
    assert len(w.viewer.pages.children) == 3 and w.viewer.pages.children[1] is first
    assert w.viewer.pages.selected_index == 2
    w.reset()
    assert len(w.viewer.pages.children) == 2 and "no turns yet" in w.viewer.html.value


def test_run_to_end_and_the_log() -> None:
    w = live()
    w.run_button.click()
    assert repr(w) == "LiveRun(turns=3, status='done')"
    assert w.step_button.disabled and w.run_button.disabled
    assert ">end_turn</span>" in w.viewer.html.value
    sizes = [t.total_input for t in w.run.turns]
    assert log(w) == (
        f"turn 1: stop_reason tool_use, {sizes[0]:,} input tokens\n"
        f"turn 2: stop_reason tool_use, {sizes[1]:,} input tokens\n"
        f"turn 3: stop_reason end_turn, {sizes[2]:,} input tokens\n"
        "done\n"
    )


def test_reset_replays_the_same_run() -> None:
    w = live()
    w.run_to_end()
    first = w.viewer.static_html()
    w.reset_button.click()
    assert repr(w) == "LiveRun(turns=0, status='not started')"
    assert w.out.outputs == ()
    w.run_to_end()
    assert w.viewer.static_html() == first
    assert live().run_to_end() is not None  # a second widget: same ids, same numbers
    other = live()
    other.run_to_end()
    assert other.viewer.static_html() == first


def test_limit_slider_trips_its_gate() -> None:
    w = live()
    assert set(w.sliders) == {"max_turns", "token_budget", "max_repeats"}
    w.sliders["max_turns"].value = 2
    assert w.run.limits.max_turns == 2
    w.run_button.click()
    assert repr(w) == "LiveRun(turns=2, status='max_turns')"
    assert re.findall(r'looplab-tripped" data-gate="(\w+)"', w.viewer.html.value) == ["turns"]
    assert log(w).endswith("stopped: max_turns (2 of 2 turns used)\n")


def test_gates_that_are_off_get_no_slider() -> None:
    w = live(limits=Limits(token_budget=None, max_repeats=None))
    assert set(w.sliders) == {"max_turns"}


def test_errors_are_shown_not_raised() -> None:
    # a client object is reused on Reset, so the script has nothing left to play
    w = LiveRun(fake_client(ScriptedModel([say("hi")])), "Hello", [], clock=FakeClock())
    w.run_to_end()
    w.reset()
    w.step()
    assert repr(w) == "LiveRun(turns=0, status='error')"
    assert "stopped: error</span> 0 turns — ScriptExhausted: request" in w.viewer.header.value
    assert log(w).startswith("error: ScriptExhausted: request")
    assert w.step_button.disabled


def test_live_run_static_html() -> None:
    w = live()
    w.step()
    bundle = w._repr_mimebundle_()
    assert bundle["text/plain"] == "LiveRun(turns=1, status='running')"
    assert bundle["text/html"] == w.viewer.static_html()
    assert "running</span> 1 turn" in bundle["text/html"]


# -- token explorer --------------------------------------------------------------------------

ARTICLE_TABLE = (
    "S=400, Δ=300; input cost in base-price tokens\n"
    "               N=10       2N=20   2N / N\n"
    "plain        17,500      65,000     3.71\n"
)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_explorer_shows_the_article_numbers() -> None:
    x = token_explorer()
    assert repr(x) == "TokenExplorer(S=400, delta=300, N=10, caching=False, compaction=False)"
    assert x.totals == ARTICLE_TABLE
    assert html.escape(ARTICLE_TABLE) in x.table.value
    assert x.image.format == "png" and png_size(x.image.value) == (700, 400)


def test_explorer_redraws_in_place_and_only_when_a_slider_is_let_go() -> None:
    x = token_explorer()
    image, table, before = x.image, x.table, x.image.value
    assert not any(s.continuous_update for s in (x.S, x.delta, x.N))
    x.N.value = 20
    assert x.image is image and x.table is table  # the same widgets, new values
    assert x.image.value != before and png_size(x.image.value) == png_size(before)
    assert list(x.children).count(image) == 1 and len(x.children) == 4


def test_explorer_sliders_redraw() -> None:
    x = token_explorer()
    x.N.value = 20
    assert x.totals.splitlines()[2] == "plain        65,000     250,000     3.85"
    plain = x.figure.axes[0].get_lines()[0]
    assert plain.get_label() == "plain"
    assert list(plain.get_xdata()) == list(range(1, 41))
    assert plain.get_ydata()[-1] == cumulative_input(40, 400, 300)
    x.S.value, x.delta.value = 1000, 0
    assert x.totals.splitlines()[2] == "plain        20,000      40,000     2.00"
    assert "20,000" in x.table.value


def test_explorer_toggles_add_strategies() -> None:
    x = token_explorer()
    x.caching.value = True
    x.compaction.value = True
    labels = [ln.get_label() for ln in x.figure.axes[0].get_lines()]
    assert labels == [
        "plain",
        "caching",
        "compaction every 5",
        "caching + compaction every 5",
        "turn 10",
    ]
    rows = [line.split()[0] for line in x.totals.splitlines()[2:]]
    assert rows == ["plain", "caching", "compaction", "caching"]
    assert x.totals.splitlines()[2:] == [
        "plain                               17,500      65,000     3.71",
        "caching                              5,315      13,515     2.54",
        "compaction every 5                  11,900      25,700     2.16",
        "caching + compaction every 5         5,215      10,965     2.10",
    ]


def test_explorer_static_html() -> None:
    bundle = token_explorer()._repr_mimebundle_()
    assert bundle["text/html"] == (
        '<pre style="font-family: ui-monospace, monospace; font-size: 12px;">'
        + html.escape(ARTICLE_TABLE)
        + "</pre>"
    )


# -- lazy exports ------------------------------------------------------------------------------


@pytest.mark.slow  # seconds
def test_import_looplab_loads_no_widgets_or_plots() -> None:
    code = (
        "import sys, looplab\n"
        "assert 'matplotlib' not in sys.modules and 'ipywidgets' not in sys.modules\n"
        "assert looplab.plot_cumulative_input([]).axes\n"
        "assert 'ipywidgets' not in sys.modules\n"
        "assert looplab.TurnViewer and looplab.LiveRun and looplab.token_explorer\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_lazy_names_are_the_real_objects() -> None:
    from looplab.views import explorer, plots, widgets

    assert looplab.TurnViewer is widgets.TurnViewer
    assert looplab.LiveRun is widgets.LiveRun
    assert looplab.plot_cumulative_input is plots.plot_cumulative_input
    assert looplab.token_explorer is explorer.token_explorer
    with pytest.raises(AttributeError, match="module 'looplab' has no attribute 'TurnView'"):
        looplab.TurnView  # noqa: B018
