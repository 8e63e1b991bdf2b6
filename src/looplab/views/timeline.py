"""A trace as a timeline: one row per span, a bar where it ran on the run's clock.

    Timeline(traced.spans)     # shown by a notebook: bars in HTML, rows as text elsewhere

The spans are OpenTelemetry's finished spans (`ReadableSpan`), read by their fields only:
`name`, `start_time`, `end_time` (nanoseconds), `attributes`, `status`, `parent`. The HTML
is plain (styles inline), so a static page shows the same bars as a running notebook. A
span that ended with status ERROR is red and marked ✗.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..i18n import _
from .html import _RED, FONT, MONO, esc

# gen_ai.operation.name -> the bar's colour
_COLOURS = {"invoke_agent": "#6b6b6b", "chat": "#1f5fa8", "execute_tool": "#2e7d32",
            "gate": "#d9822b"}


def _seconds(ns: int | None) -> float:
    return (ns or 0) / 1e9


def _is_error(span: Any) -> bool:
    return getattr(span.status.status_code, "name", "") == "ERROR"


def _note(span: Any) -> str:
    """What a row says after the span's name: the few attributes worth reading."""
    a = dict(span.attributes or {})
    op = a.get("gen_ai.operation.name")
    if op == "chat":
        reasons = ",".join(a.get("gen_ai.response.finish_reasons", ()))
        return _("{reason} · {input} in / {output} out").format(
            reason=reasons, input=a.get("gen_ai.usage.input_tokens", 0),
            output=a.get("gen_ai.usage.output_tokens", 0))
    if op == "execute_tool":
        return str(a.get("gen_ai.tool.call.arguments", ""))
    if op == "gate":
        name = a.get("looplab.gate.name") or ""
        return f"{a.get('looplab.gate.decision', '')} {name}".strip()
    return str(a.get("looplab.run.status", ""))


class Timeline:
    """The spans of one trace, drawn on one time axis (the first span's start is 0)."""

    def __init__(self, spans: Sequence[Any]) -> None:
        self.spans = list(spans)
        self.t0 = min((s.start_time or 0 for s in self.spans), default=0)
        self.end = max((s.end_time or 0 for s in self.spans), default=0)

    def _rows(self) -> list[tuple[Any, float, float, int]]:
        """(span, start s, length s, depth) of each span."""
        ids = {s.context.span_id: s for s in self.spans}

        def depth(s: Any) -> int:
            return 0 if s.parent is None or s.parent.span_id not in ids else 1 + depth(
                ids[s.parent.span_id])

        return [(s, _seconds((s.start_time or 0) - self.t0),
                 _seconds((s.end_time or 0) - (s.start_time or 0)), depth(s))
                for s in self.spans]

    def __repr__(self) -> str:
        lines = [f"{_('start'):>7} {_('length'):>7}  {_('span')}"]
        for s, start, length, level in self._rows():
            mark = " ✗" if _is_error(s) else ""
            name = "  " * level + s.name + mark
            lines.append(f"{start:>6.2f}s {length:>6.2f}s  {name:<32} {_note(s)}".rstrip())
        return "\n".join(lines)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))

    def _repr_html_(self) -> str:
        total = max(_seconds(self.end - self.t0), 1e-9)
        rows = []
        for s, start, length, level in self._rows():
            op = (s.attributes or {}).get("gen_ai.operation.name", "")
            colour = _RED if _is_error(s) else _COLOURS.get(op, "#6b6b6b")
            left, width = 100 * start / total, max(100 * length / total, 0.4)
            bar = (f'<div style="position: relative; height: 14px; background: #f6f8fa;">'
                   f'<div style="position: absolute; left: {left:.2f}%; width: {width:.2f}%;'
                   f' height: 14px; background: {colour}; border-radius: 2px;"></div></div>')
            mark = " ✗" if _is_error(s) else ""
            rows.append(
                f'<tr><td style="{MONO} white-space: nowrap; padding-left: {level * 14}px;">'
                f"{esc(s.name + mark)}</td>"
                f'<td style="{MONO} text-align: right;">{start:.2f}s</td>'
                f'<td style="{MONO} text-align: right;">{length:.2f}s</td>'
                f'<td style="width: 45%;">{bar}</td>'
                f'<td style="{MONO}">{esc(_note(s))}</td></tr>')
        head = "".join(f"<th style='text-align: left;'>{esc(h)}</th>" for h in (
            _("span"), _("start"), _("length"), _("timeline"), ""))
        return (f'<table style="{FONT} border-collapse: collapse; width: 100%;">'
                f"<tr>{head}</tr>{''.join(rows)}</table>")
