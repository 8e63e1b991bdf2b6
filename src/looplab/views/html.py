"""Runs and turns as plain HTML: what the widgets show, as strings.

Used by the widgets, by `RunResult`'s notebook display (registered in `looplab/__init__.py`)
and by static renderings (nbconvert, GitHub) that cannot run widgets. Labels are in the
language current when the HTML is made; API words (`tool_use`, `tool_result`, `stop_reason`
values, field names) stay as the API spells them.
"""

from __future__ import annotations

import html
import json
from typing import Any

from ..core.result import GateState, RunResult, ToolCall, Turn
from ..i18n import _, ngettext

__all__ = ["render_run_html", "render_turn_html"]

FONT = "font-family: system-ui, sans-serif; font-size: 13px; line-height: 1.4;"
MONO = "font-family: ui-monospace, monospace; font-size: 12px;"
# Lines break at spaces only (JupyterLab's own `pre` style would break inside words); a
# word too long for the line, or a result too long for the box, scrolls inside the box.
# Styles are inline: they win over the page's and survive static renderings.
NO_WORD_BREAK = "white-space: pre-wrap; word-break: normal; overflow-wrap: normal;"
_PRE = (
    f"{MONO} {NO_WORD_BREAK} overflow: auto; max-height: 16em;"
    " margin: 2px 0; padding: 4px; background: #f6f8fa;"
)
# A widget shown from a lesson's saved state has no kernel behind it, and ipywidgets marks
# each of its parts with a broken-link icon. One icon, on the whole widget, says enough:
# top-level widgets carry WIDGET_CLASS and one of their HTML parts this style.
WIDGET_CLASS = "looplab-widget"
QUIET_PARTS = (
    f"<style>.{WIDGET_CLASS} .jupyter-widgets-disconnected::before {{ display: none; }}</style>"
)
# tool_use | tool_result side by side when there is room for two such columns, else stacked
_COLUMNS = "grid-template-columns: repeat(auto-fit, minmax(min(100%, 24em), 1fr));"
_RED = "#b3261e"
# one colour per tool_use of a turn, shared with the tool_result that answers it
_PAIR_COLOURS = ("#1f5fa8", "#d9822b", "#2e7d32", "#7b1fa2", "#00838f", "#5d4037")
_BADGE_COLOURS = {"end_turn": "#2e7d32", "tool_use": "#1f5fa8", "pause_turn": "#6b6b6b"}
# GateState.tripped / RunResult.status -> the meter it belongs to
_GATE_OF_STATUS = {
    "max_turns": "turns",
    "token_budget": "tokens",
    "timeout": "time",
    "repeated_call": "repeats",
}


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _badge(text: str, colour: str, cls: str) -> str:
    style = f"background: {colour}; color: white; border-radius: 8px; padding: 0 7px; {MONO}"
    return f'<span class="{cls}" style="{style}">{esc(text)}</span>'


def _stop_reason_badge(stop_reason: str | None) -> str:
    text = stop_reason or "no stop_reason"
    colour = _BADGE_COLOURS.get(text, _RED if stop_reason else "#6b6b6b")
    return _badge(text, colour, "looplab-stop-reason")


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def _pre(text: str) -> str:
    """Text in a <pre> of capped height: a long one scrolls inside it."""
    return f'<pre style="{_PRE}">{esc(text)}</pre>'


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
        ngettext("sent {n} message", "sent {n} messages", turn.messages_sent).format(
            n=turn.messages_sent),
        _("{n:,} input tokens").format(n=turn.total_input),
    ]
    if turn.cache_creation_input_tokens or turn.cache_read_input_tokens:
        parts[-1] += _(" (input {input:,} · cache write {write:,} · cache read {read:,})").format(
            input=turn.input_tokens, write=turn.cache_creation_input_tokens,
            read=turn.cache_read_input_tokens)
    if previous is not None:
        grew = turn.total_input - previous.total_input
        parts.append(_("history grew by {grew:+,} since turn {turn}").format(
            grew=grew, turn=previous.index))
    else:
        parts.append(_("first request"))
    parts.append(_("{n:,} output tokens").format(n=turn.output_tokens))
    return f'<div class="looplab-sent">{esc(" · ".join(parts))}</div>'


def _tool_result_html(call: ToolCall | None, turn: Turn) -> str:
    if call is None or (call.result is None and call.outcome != "ran"):
        why = (_("not run (stop_reason {reason})").format(reason=turn.stop_reason)
               if call is None else _("not run"))
        return (
            '<div class="looplab-tool-result looplab-missing" style="min-width: 0;">'
            f"<i>{esc(why)}</i></div>"
        )
    label = "tool_result"
    if call.outcome == "blocked":
        label += _(" (blocked: not run)")
    elif call.outcome == "not_run":
        label += _(" (not run)")
    cls, style, error = "looplab-tool-result", "min-width: 0;", ""
    if call.is_error:
        cls, style = f"{cls} looplab-error", f"{style} color: {_RED};"
        error = " " + _badge("is_error", _RED, "looplab-is-error")
    attrs = f'class="{cls}" data-tool-use-id="{esc(call.id)}" style="{style}"'
    answering = esc(_("for"))  # "tool_result for toolu_…"
    return (
        f"<div {attrs}><b>{esc(label)}</b> {answering} <code>{esc(call.id)}</code>{error}"
        f"{_pre(_result_text(call.result))}</div>"
    )


def _block_html(block: dict[str, Any], turn: Turn, pair: int) -> str:
    kind = block.get("type")
    if kind == "text":
        text = str(block.get("text", ""))
        style = f"{NO_WORD_BREAK} overflow-x: auto;"
        return f'<div class="looplab-text" style="{style}">{esc(text)}</div>'
    if kind == "thinking":
        thought = str(block.get("thinking", ""))
        summary = esc(_("thinking ({n:,} characters)").format(n=len(thought)))
        return (
            f'<details class="looplab-thinking"><summary>{summary}</summary>'
            f"{_pre(thought)}</details>"
        )
    if kind == "redacted_thinking":
        return '<details class="looplab-thinking"><summary>redacted thinking</summary></details>'
    if kind == "tool_use":
        colour = _PAIR_COLOURS[pair % len(_PAIR_COLOURS)]
        calls = {c.id: c for c in turn.tool_calls}
        use = (
            f'<div class="looplab-tool-use" data-id="{esc(block.get("id"))}"'
            ' style="min-width: 0;">'
            f"<b>tool_use</b> <code>{esc(block.get('id'))}</code> "
            f"<b>{esc(block.get('name'))}</b>{_pre(_json(block.get('input')))}</div>"
        )
        result = _tool_result_html(calls.get(str(block.get("id"))), turn)
        style = (
            f"display: grid; {_COLUMNS} gap: 4px 8px; margin: 4px 0;"
            f" border-left: 4px solid {colour}; padding-left: 6px;"
        )
        return f'<div class="looplab-pair" style="{style}">{use}{result}</div>'
    # server_tool_use, web_search_tool_result, …: shown as they came
    return f'<div class="looplab-block"><b>{esc(kind)}</b>{_pre(_json(block))}</div>'


def _gate_label(name: str) -> str:
    """A meter's label in the current language (its `data-gate` stays `name`)."""
    labels = {"turns": _("turns"), "tokens": _("tokens"), "time": _("time"),
              "repeats": _("repeats")}
    return labels.get(name, name)


def _meter(name: str, value: float, limit: float | None, shown: str, tripped: bool) -> str:
    label = _gate_label(name)
    if limit is None:
        text, percent = _("{gate} {value} (gate off)").format(gate=label, value=shown), 0.0
    else:
        limit_shown = f"{limit:g} s" if name == "time" else f"{limit:,}"
        text = f"{label} {shown} / {limit_shown}"
        percent = 100.0 if limit <= 0 else min(100.0, 100.0 * value / limit)
    cls = "looplab-gate"
    bar = "#1f5fa8"
    if tripped:
        cls += " looplab-tripped"
        bar = _RED
        text += _(" · tripped")
    return (
        f'<div class="{cls}" data-gate="{name}" style="display: flex; align-items: center;'
        f' gap: 6px; {"color: " + _RED + "; font-weight: bold;" if tripped else ""}">'
        f'<span style="flex: 1 0 auto;">{esc(text)}</span>'
        f'<span style="flex: 0 1 90px; min-width: 30px; height: 8px; background: #e6e6e6;'
        f' border-radius: 4px; overflow: hidden;"><span style="display: block; height: 100%;'
        f' width: {percent:.0f}%; background: {bar};"></span></span></div>'
    )


def _gates_html(gates: GateState | None, stopped: str | None) -> str:
    if gates is None:
        missing = esc(_("gate state not recorded"))
        return f'<div class="looplab-gates"><i>{missing}</i></div>'
    tripped = _GATE_OF_STATUS.get(gates.tripped or stopped or "")
    meters = [
        ("turns", gates.turns, gates.max_turns, f"{gates.turns}"),
        ("tokens", gates.tokens_used, gates.token_budget, f"{gates.tokens_used:,}"),
        ("time", gates.elapsed_s, gates.timeout_s, f"{gates.elapsed_s:.1f} s"),
        ("repeats", gates.repeats, gates.max_repeats, f"{gates.repeats}"),
    ]
    rows = "".join(_meter(n, v, lim, s, n == tripped) for n, v, lim, s in meters)
    # two meters a row where there is room, one where there is not
    style = (
        "display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 20em), 1fr));"
        " gap: 0 16px; margin: 2px 0 4px; max-width: 44em;"
    )
    return f'<div class="looplab-gates" style="{style}">{rows}</div>'


def render_turn_html(turn: Turn, *, previous: Turn | None = None,
                     stopped: str | None = None) -> str:
    """One turn as HTML: what was sent, the gates after it, the assistant blocks, the results.

    The gate meters come first, so they stay on screen next to a viewer's buttons. Each
    `tool_use` sits next to the `tool_result` that answers it (same colour, same id; one
    above the other when the page is narrow); `is_error` results are red; thinking is
    folded; long text scrolls inside a box of capped height; the tripped gate's meter is red.
    `previous` (the turn before) lets it say how much the history grew. `stopped`: the
    status of a run that stopped after this turn (a gate that closed before the next
    request, such as the pre-flight token count, is shown tripped here).
    """
    blocks = []
    pair = 0
    for block in turn.content:
        blocks.append(_block_html(block, turn, pair))
        pair += block.get("type") == "tool_use"
    title = esc(_("turn {n}").format(n=turn.index))
    head = f"<b>{title}</b> {_stop_reason_badge(turn.stop_reason)}"
    return (
        f'<div class="looplab-turn" data-turn="{turn.index}" style="{FONT}">'
        f"<div>{head}</div>{_sent_line(turn, previous)}{_gates_html(turn.gates, stopped)}"
        f'<div class="looplab-blocks" style="margin: 4px 0;">{"".join(blocks)}</div></div>'
    )


def status_html(status: str, detail: str, turns: int) -> str:
    colour = {"done": "#2e7d32", "running": "#1f5fa8", "not started": "#6b6b6b"}.get(status, _RED)
    shown = {"done": _("done"), "running": _("running"), "not started": _("not started")}
    text = shown.get(status) or _("stopped: {status}").format(status=status)
    more = f" — {esc(detail)}" if detail else ""
    n = esc(ngettext("{n} turn", "{n} turns", turns).format(n=turns))
    return (
        f'<div class="looplab-status" style="{FONT}">{_badge(text, colour, "looplab-run-status")}'
        f" {n}{more}</div>"
    )


def render_run_html(result: RunResult) -> str:
    """A whole run as HTML: its status, then every turn (`render_turn_html`)."""
    parts = [status_html(result.status, str(result.detail), len(result.turns))]
    previous = None
    for turn in result.turns:
        parts.append('<hr style="margin: 6px 0;">')
        last = turn is result.turns[-1]
        parts.append(render_turn_html(turn, previous=previous,
                                      stopped=result.status if last else None))
        previous = turn
    return "".join(parts)


# -- widgets -------------------------------------------------------------------------------


def with_html(bundle: Any, text_html: str) -> Any:
    """Add a static HTML copy next to the widget view (used when no widget can render)."""
    if isinstance(bundle, dict):
        bundle["text/html"] = text_html
    return bundle
