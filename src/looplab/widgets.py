"""See each turn: `TurnViewer` for a finished run, `LiveRun` to step one live, and the
`token_explorer` for the S/Δ arithmetic.

The widgets are composed (`VBox`, `HTML`, `Output`) and fill their `Output` with
`append_stdout`/`append_display_data` only, never `with out:`, so they behave the same in
JupyterLab, under nbval, and in a plain Python test. Each one also carries an HTML copy
of what it shows, for static renderings (nbconvert, GitHub) that cannot run widgets.
`render_turn_html` and `render_run_html` give the same views as plain HTML strings.
"""

from __future__ import annotations

import dataclasses
import html
import json
from collections.abc import Callable, Sequence
from typing import Any

import anthropic
import ipywidgets as W  # type: ignore[import-untyped]

from . import tokens
from .limits import Limits
from .loop import AgentRun
from .result import GateState, RunResult, ToolCall, Turn

__all__ = [
    "LiveRun",
    "TokenExplorer",
    "TurnViewer",
    "render_run_html",
    "render_turn_html",
    "token_explorer",
]

# -- plain HTML views --------------------------------------------------------------------

_FONT = "font-family: system-ui, sans-serif; font-size: 13px; line-height: 1.4;"
_MONO = "font-family: ui-monospace, monospace; font-size: 12px;"
_PRE = f"{_MONO} white-space: pre-wrap; margin: 2px 0; padding: 4px; background: #f6f8fa;"
_RED = "#b3261e"
# one colour per tool_use of a turn, shared with the tool_result that answers it
_PAIR_COLOURS = ("#1f5fa8", "#d9822b", "#2e7d32", "#7b1fa2", "#00838f", "#5d4037")
_BADGE_COLOURS = {"end_turn": "#2e7d32", "tool_use": "#1f5fa8", "pause_turn": "#6b6b6b"}
# a tool result longer than this shows its start, with the rest folded away
_SHOW_CHARS = 1_000
# GateState.tripped / RunResult.status -> the meter it belongs to
_GATE_OF_STATUS = {
    "max_turns": "turns",
    "token_budget": "tokens",
    "timeout": "time",
    "repeated_call": "repeats",
}


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _badge(text: str, colour: str, cls: str) -> str:
    style = f"background: {colour}; color: white; border-radius: 8px; padding: 0 7px; {_MONO}"
    return f'<span class="{cls}" style="{style}">{_esc(text)}</span>'


def _stop_reason_badge(stop_reason: str | None) -> str:
    text = stop_reason or "no stop_reason"
    colour = _BADGE_COLOURS.get(text, _RED if stop_reason else "#6b6b6b")
    return _badge(text, colour, "looplab-stop-reason")


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def _folded(text: str) -> str:
    """Text in a <pre>; a long one shows its start and folds the rest away."""
    if len(text) <= _SHOW_CHARS:
        return f'<pre style="{_PRE}">{_esc(text)}</pre>'
    return (
        f'<pre style="{_PRE}">{_esc(text[:_SHOW_CHARS])}…</pre>'
        f"<details><summary>all {len(text):,} characters</summary>"
        f'<pre style="{_PRE}">{_esc(text)}</pre></details>'
    )


def _result_text(content: Any) -> str:
    """A tool_result's `content` as text: a string, or its text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(b, dict) and b.get("type") == "text" for b in content
    ):
        return "\n".join(str(b.get("text", "")) for b in content)
    return _json(content)


def _sent_line(turn: Turn, previous: Turn | None) -> str:
    parts = [
        f"sent {turn.messages_sent} message{'s' if turn.messages_sent != 1 else ''}",
        f"{turn.total_input:,} input tokens",
    ]
    if turn.cache_creation_input_tokens or turn.cache_read_input_tokens:
        parts[-1] += (
            f" (input {turn.input_tokens:,} · cache write {turn.cache_creation_input_tokens:,}"
            f" · cache read {turn.cache_read_input_tokens:,})"
        )
    if previous is not None:
        grew = turn.total_input - previous.total_input
        parts.append(f"history grew by {grew:+,} since turn {previous.index}")
    else:
        parts.append("first request")
    parts.append(f"{turn.output_tokens:,} output tokens")
    return f'<div class="looplab-sent">{_esc(" · ".join(parts))}</div>'


def _tool_result_html(call: ToolCall | None, turn: Turn) -> str:
    if call is None or (call.result is None and call.outcome != "ran"):
        why = f"not run (stop_reason {turn.stop_reason})" if call is None else "not run"
        return f'<div class="looplab-tool-result looplab-missing"><i>{_esc(why)}</i></div>'
    label = "tool_result"
    if call.outcome == "blocked":
        label += " (blocked: not run)"
    elif call.outcome == "not_run":
        label += " (not run)"
    error = ""
    attrs = f'class="looplab-tool-result" data-tool-use-id="{_esc(call.id)}"'
    if call.is_error:
        attrs = (
            f'class="looplab-tool-result looplab-error" data-tool-use-id="{_esc(call.id)}"'
            f' style="color: {_RED};"'
        )
        error = " " + _badge("is_error", _RED, "looplab-is-error")
    return (
        f"<div {attrs}><b>{_esc(label)}</b> for <code>{_esc(call.id)}</code>{error}"
        f"{_folded(_result_text(call.result))}</div>"
    )


def _block_html(block: dict[str, Any], turn: Turn, pair: int) -> str:
    kind = block.get("type")
    if kind == "text":
        text = str(block.get("text", ""))
        return f'<div class="looplab-text" style="white-space: pre-wrap;">{_esc(text)}</div>'
    if kind == "thinking":
        thought = str(block.get("thinking", ""))
        return (
            f'<details class="looplab-thinking"><summary>thinking ({len(thought):,} '
            f'characters)</summary><pre style="{_PRE}">{_esc(thought)}</pre></details>'
        )
    if kind == "redacted_thinking":
        return '<details class="looplab-thinking"><summary>redacted thinking</summary></details>'
    if kind == "tool_use":
        colour = _PAIR_COLOURS[pair % len(_PAIR_COLOURS)]
        calls = {c.id: c for c in turn.tool_calls}
        use = (
            f'<div class="looplab-tool-use" data-id="{_esc(block.get("id"))}">'
            f"<b>tool_use</b> <code>{_esc(block.get('id'))}</code> "
            f"<b>{_esc(block.get('name'))}</b>"
            f'<pre style="{_PRE}">{_esc(_json(block.get("input")))}</pre></div>'
        )
        result = _tool_result_html(calls.get(str(block.get("id"))), turn)
        style = (
            f"display: grid; grid-template-columns: 1fr 1fr; gap: 8px; margin: 4px 0;"
            f" border-left: 4px solid {colour}; padding-left: 6px;"
        )
        return f'<div class="looplab-pair" style="{style}">{use}{result}</div>'
    # server_tool_use, web_search_tool_result, …: shown as they came
    return (
        f'<div class="looplab-block"><b>{_esc(kind)}</b>'
        f'<pre style="{_PRE}">{_esc(_json(block))}</pre></div>'
    )


def _meter(name: str, value: float, limit: float | None, shown: str, tripped: bool) -> str:
    if limit is None:
        text, percent = f"{name} {shown} (gate off)", 0.0
    else:
        limit_shown = f"{limit:g} s" if name == "time" else f"{limit:,}"
        text = f"{name} {shown} / {limit_shown}"
        percent = 100.0 if limit <= 0 else min(100.0, 100.0 * value / limit)
    cls = "looplab-gate"
    bar = "#1f5fa8"
    if tripped:
        cls += " looplab-tripped"
        bar = _RED
        text += " · tripped"
    return (
        f'<div class="{cls}" data-gate="{name}" style="display: flex; align-items: center;'
        f' gap: 6px; {"color: " + _RED + "; font-weight: bold;" if tripped else ""}">'
        f'<span style="width: 16em;">{_esc(text)}</span>'
        f'<span style="display: inline-block; width: 140px; height: 8px; background: #e6e6e6;'
        f' border-radius: 4px; overflow: hidden;"><span style="display: block; height: 100%;'
        f' width: {percent:.0f}%; background: {bar};"></span></span></div>'
    )


def _gates_html(gates: GateState | None) -> str:
    if gates is None:
        return '<div class="looplab-gates"><i>gate state not recorded</i></div>'
    tripped = _GATE_OF_STATUS.get(gates.tripped or "")
    meters = [
        ("turns", gates.turns, gates.max_turns, f"{gates.turns}"),
        ("tokens", gates.tokens_used, gates.token_budget, f"{gates.tokens_used:,}"),
        ("time", gates.elapsed_s, gates.timeout_s, f"{gates.elapsed_s:.1f} s"),
        ("repeats", gates.repeats, gates.max_repeats, f"{gates.repeats}"),
    ]
    rows = "".join(_meter(n, v, lim, s, n == tripped) for n, v, lim, s in meters)
    return f'<div class="looplab-gates" style="margin-top: 6px;">{rows}</div>'


def render_turn_html(turn: Turn, *, previous: Turn | None = None) -> str:
    """One turn as HTML: what was sent, the assistant blocks, the tool results, the gates.

    Each `tool_use` sits next to the `tool_result` that answers it (same colour, same id);
    `is_error` results are red; thinking is folded; the tripped gate's meter is red.
    `previous` (the turn before) lets it say how much the history grew.
    """
    blocks = []
    pair = 0
    for block in turn.content:
        blocks.append(_block_html(block, turn, pair))
        pair += block.get("type") == "tool_use"
    head = f"<b>turn {turn.index}</b> {_stop_reason_badge(turn.stop_reason)}"
    return (
        f'<div class="looplab-turn" data-turn="{turn.index}" style="{_FONT}">'
        f"<div>{head}</div>{_sent_line(turn, previous)}"
        f'<div class="looplab-blocks" style="margin: 4px 0;">{"".join(blocks)}</div>'
        f"{_gates_html(turn.gates)}</div>"
    )


def _status_html(status: str, detail: str, turns: int) -> str:
    colour = {"done": "#2e7d32", "running": "#1f5fa8", "not started": "#6b6b6b"}.get(status, _RED)
    text = status if status in ("done", "running", "not started") else f"stopped: {status}"
    more = f" — {_esc(detail)}" if detail else ""
    n = f"{turns} turn{'s' if turns != 1 else ''}"
    return (
        f'<div class="looplab-status" style="{_FONT}">{_badge(text, colour, "looplab-run-status")}'
        f" {n}{more}</div>"
    )


def render_run_html(result: RunResult) -> str:
    """A whole run as HTML: its status, then every turn (`render_turn_html`)."""
    parts = [_status_html(result.status, result.detail, len(result.turns))]
    previous = None
    for turn in result.turns:
        parts.append('<hr style="margin: 6px 0;">')
        parts.append(render_turn_html(turn, previous=previous))
        previous = turn
    return "".join(parts)


# -- widgets -------------------------------------------------------------------------------


def _with_html(bundle: Any, text_html: str) -> Any:
    """Add a static HTML copy next to the widget view (used when no widget can render)."""
    if isinstance(bundle, dict):
        bundle["text/html"] = text_html
    return bundle


class TurnViewer(W.VBox):  # type: ignore[misc]
    """Step through a run's turns with a slider or the prev/next buttons.

        TurnViewer(result)

    `.slider.value` is the turn shown (1-based); `.html.value` is its HTML.
    """

    def __init__(self, result: RunResult | None = None) -> None:
        self.header = W.HTML()
        self.slider = W.IntSlider(value=1, min=1, max=1, description="turn")
        self.prev_button = W.Button(description="◀ prev", layout=W.Layout(width="80px"))
        self.next_button = W.Button(description="next ▶", layout=W.Layout(width="80px"))
        self.html = W.HTML()
        super().__init__(
            [self.header, W.HBox([self.prev_button, self.slider, self.next_button]), self.html]
        )
        self._turns: list[Turn] = []
        self._status, self._detail = "not started", ""
        self.slider.observe(lambda _: self._render(), names="value")
        self.prev_button.on_click(lambda _: self.show(self.slider.value - 1))
        self.next_button.on_click(lambda _: self.show(self.slider.value + 1))
        if result is not None:
            self.load(result)
        else:
            self._render()

    def load(self, result: RunResult, *, turn: int | None = None) -> None:
        """Show `result`, at `turn` (default: the first)."""
        self.set_turns(result.turns, result.status, result.detail, turn=turn or 1)

    def set_turns(
        self, turns: Sequence[Turn], status: str, detail: str = "", *, turn: int = 1
    ) -> None:
        """Show `turns` of a run that may still be going (`status` e.g. "running")."""
        self._turns = list(turns)
        self._status, self._detail = status, detail
        with self.slider.hold_trait_notifications():
            self.slider.max = max(1, len(self._turns))
            self.slider.value = min(max(1, turn), self.slider.max)
        self._render()

    @property
    def turn(self) -> Turn | None:
        """The turn on screen, or `None` if the run has none."""
        return self._turns[self.slider.value - 1] if self._turns else None

    def show(self, n: int) -> None:
        """Go to turn `n` (clamped to the run's turns)."""
        self.slider.value = min(max(1, n), self.slider.max)

    def _render(self) -> None:
        n = self.slider.value
        self.header.value = _status_html(self._status, self._detail, len(self._turns))
        self.prev_button.disabled = n <= 1
        self.next_button.disabled = n >= len(self._turns)
        self.slider.disabled = len(self._turns) <= 1
        turn = self.turn
        if turn is None:
            self.html.value = f'<div class="looplab-turn" style="{_FONT}"><i>no turns yet</i></div>'
            return
        previous = self._turns[n - 2] if n >= 2 else None
        self.html.value = render_turn_html(turn, previous=previous)

    def static_html(self) -> str:
        """Every turn as HTML (what a page without widgets shows)."""
        return render_run_html(
            RunResult(status=self._status, messages=[], turns=self._turns, detail=self._detail)
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return _with_html(super()._repr_mimebundle_(**kwargs), self.static_html())

    def __repr__(self) -> str:
        return (
            f"TurnViewer(turn {self.slider.value if self._turns else 0} of {len(self._turns)},"
            f" status={self._status!r})"
        )


ClientLike = anthropic.Anthropic | Callable[[], anthropic.Anthropic]


class LiveRun(W.VBox):  # type: ignore[misc]
    """Drive an `AgentRun` one model request per click: Step, Run to end, Reset.

        LiveRun(fake_client(ScriptedModel(script)), task, tools=..., limits=Limits(...))

    The limit sliders change the running run's limits at once (a gate that has already
    stopped the run stays stopped: press Reset). `client` may also be a function that
    builds a client: it is called again on every Reset, so a scripted fake replays from
    its first step (a client object is reused as it is, and a fake's script goes on
    where it was). Other keyword arguments go to `AgentRun` (`clock`, `system`, …); with
    a `FakeClock` every number on screen is the same on every run.
    """

    def __init__(
        self,
        client: ClientLike,
        task: str | Sequence[dict[str, Any]],
        tools: Sequence[Any] = (),
        limits: Limits | None = None,
        **run_kwargs: Any,
    ) -> None:
        limits = Limits() if limits is None else limits
        self._client_or_factory = client
        self.task, self.tools, self.run_kwargs = task, list(tools), run_kwargs
        self.step_button = W.Button(description="Step", button_style="primary")
        self.run_button = W.Button(description="Run to end")
        self.reset_button = W.Button(description="Reset")
        self.sliders = self._limit_sliders(limits)
        self.viewer = TurnViewer()
        self.out = W.Output()
        super().__init__(
            [
                W.HBox([self.step_button, self.run_button, self.reset_button]),
                W.HBox(list(self.sliders.values())),
                self.viewer,
                self.out,
            ]
        )
        self._limits = limits
        self.error: BaseException | None = None
        self.run = self._new_run()
        self.step_button.on_click(lambda _: self.step())
        self.run_button.on_click(lambda _: self.run_to_end())
        self.reset_button.on_click(lambda _: self.reset())
        for name, slider in self.sliders.items():
            slider.observe(lambda change, name=name: self._set_limit(name, change["new"]), "value")
        self._render()

    @staticmethod
    def _limit_sliders(limits: Limits) -> dict[str, Any]:
        """A slider per gate that is on (a gate set to None has none)."""
        specs = {
            "max_turns": (1, 30, 1),
            "token_budget": (1_000, 200_000, 1_000),
            "max_repeats": (1, 10, 1),
        }
        sliders = {}
        for name, (low, high, step) in specs.items():
            value = getattr(limits, name)
            if value is None:
                continue
            sliders[name] = W.IntSlider(
                value=value,
                min=min(low, value),
                max=max(high, value),
                step=step,
                description=name,
                continuous_update=False,
                style={"description_width": "initial"},
            )
        return sliders

    @property
    def limits(self) -> Limits:
        return self._limits

    def _client(self) -> anthropic.Anthropic:
        c = self._client_or_factory
        return c if isinstance(c, anthropic.Anthropic) else c()

    def _new_run(self) -> AgentRun:
        return AgentRun(
            self._client(), self.task, tools=self.tools, limits=self._limits, **self.run_kwargs
        )

    def _set_limit(self, name: str, value: int) -> None:
        change: dict[str, Any] = {name: value}
        self._limits = dataclasses.replace(self._limits, **change)
        self.run.limits = self._limits  # read by the gates before the next request
        self._render()

    @property
    def finished(self) -> bool:
        return self.run.finished or self.error is not None

    def step(self) -> Turn | None:
        """One model request and its tools; the view moves to the new turn."""
        if self.finished:
            return None
        try:
            turn = self.run.step()
        except Exception as e:  # shown, not raised: a click handler's exception is invisible
            self.error = e
            self.out.append_stdout(f"error: {type(e).__name__}: {e}\n")
            turn = None
        if turn is not None:
            self.out.append_stdout(
                f"turn {turn.index}: stop_reason {turn.stop_reason},"
                f" {turn.total_input:,} input tokens\n"
            )
        if self.run.finished:
            self.out.append_stdout(f"{self.run.result}\n")
        self._render()
        return turn

    def run_to_end(self) -> RunResult | None:
        """Step until the run has finished."""
        while not self.finished:
            self.step()
        return self.run.result

    def reset(self) -> None:
        """Start again from the task, with the limits the sliders show."""
        self.error = None
        self.out.outputs = ()
        self.run = self._new_run()
        self._render()

    def _state(self) -> tuple[str, str]:
        if self.error is not None:
            return "error", f"{type(self.error).__name__}: {self.error}"
        if self.run.status is not None:
            return self.run.status, self.run.detail
        return ("running" if self.run.turns else "not started"), ""

    def _render(self) -> None:
        status, detail = self._state()
        self.step_button.disabled = self.run_button.disabled = self.finished
        self.viewer.set_turns(self.run.turns, status, detail, turn=len(self.run.turns))

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return _with_html(super()._repr_mimebundle_(**kwargs), self.viewer.static_html())

    def __repr__(self) -> str:
        status, _ = self._state()
        return f"LiveRun(turns={len(self.run.turns)}, status={status!r})"


class TokenExplorer(W.VBox):  # type: ignore[misc]
    """Sliders for S, Δ and N, toggles for caching and compaction; redraws and prints totals.

    `.figure` is the current figure and `.totals` the printed table (both also appended to
    `.out`). Costs are in base-price input tokens (see `looplab.tokens`).
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
        self.caching = W.Checkbox(value=caching, description="prompt caching")
        self.compaction = W.Checkbox(value=compaction, description=f"compact every {compact_every}")
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
            f"S={self.S.value:,}, Δ={self.delta.value:,}; input cost in base-price tokens",
            f"{'':<{width}}{head_n:>12}{head_2n:>12}{'2N / N':>9}",
        ]
        for label, s in doubled.items():
            at_n, at_2n = sum(s.billed[:n]), s.total
            ratio = f"{at_2n / at_n:.2f}" if at_n else "-"
            lines.append(f"{label:<{width}}{at_n:>12,.0f}{at_2n:>12,.0f}{ratio:>9}")
        return "\n".join(lines) + "\n"

    def redraw(self) -> None:
        from .plots import plot_cost_comparison

        doubled = self.series(2 * self.N.value)
        self.figure = plot_cost_comparison(doubled, mark_round=self.N.value)
        self.totals = self._table(doubled)
        self.out.outputs = ()
        self.out.append_display_data(self.figure)
        self.out.append_stdout(self.totals)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return _with_html(
            super()._repr_mimebundle_(**kwargs), f'<pre style="{_MONO}">{_esc(self.totals)}</pre>'
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
