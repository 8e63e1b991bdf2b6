"""What a run leaves behind: one `Turn` per model request (its calls are `ToolCall`s, defined
with the tools that answer them), and the `RunResult`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..i18n import worded
from .limits import Limits
from .tools import ToolCall

__all__ = ["STATUSES", "GateState", "RunResult", "ToolCall", "Turn"]

# Every value `RunResult.status` can take. "done" is the only normal finish.
STATUSES = (
    "done",  # stop_reason == "end_turn"
    "max_turns",
    "token_budget",
    "timeout",
    "repeated_call",
    "max_tokens",
    "stop_sequence",
    "refusal",
    "model_context_window_exceeded",
    "unknown_stop_reason",
    "api_error",
    "interrupted",  # KeyboardInterrupt: the history is closed, so the run can go on
)


@dataclass
class GateState:
    """Each gate's counter after a turn, next to its limit (`None` = gate off)."""

    turns: int
    max_turns: int | None
    tokens_used: int
    token_budget: int | None
    elapsed_s: float
    timeout_s: float | None
    repeats: int
    """The highest count reached by any one (name, input) tool call so far."""
    max_repeats: int | None
    tripped: str | None = None
    """The gate that stopped the run after this turn, if any."""


@dataclass
class Turn:
    """One model request and what came of it."""

    index: int
    """1-based: turn n is the n-th request of the run."""
    messages_sent: int
    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    cumulative_input: int
    """Total input (input + both cache fields) of this and every earlier turn."""
    stop_reason: str | None
    content: list[dict[str, Any]]
    """The assistant content exactly as appended to `messages`, as plain dicts."""
    tool_calls: list[ToolCall] = field(default_factory=list)
    elapsed_s: float = 0.0
    """Seconds since the run started, when this turn's tools had finished."""
    gates: GateState | None = None

    @property
    def total_input(self) -> int:
        """What this request really sent: `input_tokens` plus both cache fields."""
        return (
            self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
        )


@dataclass(repr=False)
class RunResult:
    """The outcome of `run_agent`: `status`, the whole `messages` list, and every turn."""

    status: str
    messages: list[dict[str, Any]]
    turns: list[Turn] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    """Totals: input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens."""
    limits: Limits = field(default_factory=Limits)
    error: BaseException | None = None
    """The API exception, when `status == "api_error"`."""
    detail: str = ""
    """A few words on why the run stopped (e.g. the repeated tool call): a `Message`, whose
    value is English and whose `str()` is in the learner's language."""

    @property
    def done(self) -> bool:
        return self.status == "done"

    def __repr__(self) -> str:
        u = self.usage
        return (
            f"RunResult(status={self.status!r}, turns={len(self.turns)}, "
            f"messages={len(self.messages)}, input_tokens={u.get('input_tokens', 0)}, "
            f"output_tokens={u.get('output_tokens', 0)})"
        )

    def __str__(self) -> str:
        """One line: "done", or "stopped: <status> (<detail>)". The status is an
        identifier, like a `stop_reason`, and is never translated."""
        if self.status == "done":
            return worded("done")
        if not self.detail:
            return worded("stopped: {status}", status=self.status)
        return worded("stopped: {status} ({detail})", status=self.status, detail=self.detail)
