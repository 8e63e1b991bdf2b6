"""The four stop gates: which one forbids another request, and the repeated-call counter.

With the normal finish (`stop_reason == "end_turn"`) they are the article's five stop
conditions. Their settings are in `Limits`; the loop asks `closed_gate` before every
request and `check_repeats` before running a turn's tools.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..i18n import Message
from .limits import Limits
from .result import ToolCall

GATES = {
    "max_turns": "turns",
    "token_budget": "tokens",
    "timeout": "time",
    "repeated_call": "repeats",
}
"""Each gate's status (`RunResult.status` when it stopped the run) -> what it counts."""


def closed_gate(
    limits: Limits, turns: int, tokens: int, elapsed_s: float
) -> tuple[str, str] | None:
    """The first gate that forbids another request, with a few words on why."""
    if limits.max_turns is not None and turns >= limits.max_turns:
        return "max_turns", Message("{used} of {limit} turns used",
                                    used=turns, limit=limits.max_turns)
    if limits.token_budget is not None and tokens >= limits.token_budget:
        return "token_budget", Message("{used:,} of {limit:,} tokens used",
                                       used=tokens, limit=limits.token_budget)
    if limits.timeout_s is not None and elapsed_s >= limits.timeout_s:
        return "timeout", Message("{used:g} s of {limit:g} s",
                                  used=elapsed_s, limit=limits.timeout_s)
    return None


def canonical(value: Any) -> str:
    """A tool input as canonical JSON: equal inputs give equal text."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class Repeats:
    """How often each (tool name, input) call has been made.

    `cumulative` counts over the whole run, so a legitimate re-read after an edit counts
    too. `consecutive` counts a call only while nothing else comes in between (in call
    order, across turns); any other call starts the counting again.
    """

    def __init__(self, window: str = "cumulative") -> None:
        self.window = window
        self.counts: dict[str, int] = {}
        self.last: str | None = None
        self.highest = 0

    def add(self, name: str, input: Any) -> int:
        key = f"{name} {canonical(input)}"
        if self.window == "consecutive" and key != self.last:
            self.counts.clear()
        self.counts[key] = self.counts.get(key, 0) + 1
        self.last, self.highest = key, max(self.highest, self.counts[key])
        return self.counts[key]


def check_repeats(repeats: Repeats, limits: Limits, calls: Sequence[ToolCall]) -> str | None:
    """Count each call. The `max_repeats`-th identical call is blocked (answered without
    running it); returns why the run must stop instead, if it must."""
    for c in calls:
        n = repeats.add(c.name, c.input)
        if limits.max_repeats is None or n < limits.max_repeats:
            continue
        if limits.on_repeat == "stop" or n > limits.max_repeats:
            return Message("{call}: identical call made {n} times",
                           call=f"{c.name} {canonical(c.input)}", n=n)
        c.answer(f"not run: identical call made {n} times; change approach",
                 is_error=True, outcome="blocked")
    return None
