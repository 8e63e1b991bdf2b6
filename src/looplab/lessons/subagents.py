"""Lesson 14's ledger: one token budget shared by a run and every sub-agent it starts.

`run_agent`'s token gate counts the tokens of its own requests. A sub-agent is another
run, with its own history and its own `RunResult.usage`; what it spends is still spent by
the task that started it. A `Ledger` is where both are added up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.result import RunResult, Turn


@dataclass
class Ledger:
    """Tokens spent so far (input, cache fields and output) against one `budget`."""

    budget: int
    used: int = 0

    @property
    def remaining(self) -> int:
        """Tokens left, never below 0 (a `Limits.token_budget` takes it as it is)."""
        return max(0, self.budget - self.used)

    def charge(self, usage: Mapping[str, int]) -> None:
        """Add a run's `usage` (a `RunResult.usage`) to what was spent."""
        self.add(sum(usage.values()))

    def charge_turn(self, turn: Turn) -> None:
        """Add one turn's tokens: pass as `on_turn=ledger.charge_turn` to `run_agent`."""
        self.add(turn.input_tokens + turn.cache_creation_input_tokens
                 + turn.cache_read_input_tokens + turn.output_tokens)

    def add(self, tokens: int) -> None:
        """Add `tokens` to what was spent: every charge comes through here."""
        self.used += tokens


def final_text(result: RunResult) -> str:
    """The text of the run's last assistant message ("" when there is none)."""
    for message in reversed(result.messages):
        if message["role"] == "assistant":
            content: Any = message["content"]
            if isinstance(content, str):
                return content
            return "".join(b.get("text", "") for b in content if b.get("type") == "text")
    return ""
