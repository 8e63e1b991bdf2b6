"""Lesson 14's ledger: one token budget shared by a run and every sub-agent it starts.

`run_agent`'s token gate counts the tokens of its own requests. A sub-agent is another
run, with its own history and its own `RunResult.usage`; what it spends is still spent by
the task that started it. A `Ledger` is where all of them are paid from.

A ledger **reserves before it spends**. `Ledger.run` counts each request's input with the
API's `count_tokens` before sending it, and reserves that plus the request's `max_tokens`
(the most its reply can add): the most the request can cost. Only when the reservation is
granted is the request sent; its reply's `usage` is then charged and the rest of the
reservation given back. Reserving and settling hold the ledger's lock, so runs in several
threads at once (parallel sub-agents) and runs inside runs (a sub-agent's own sub-agent)
are paid from one budget: the sum of what they spend never passes it (as long as a reply
costs no more than its counted input and `max_tokens`: what a request can be billed;
a reply that reports more is charged what it reports). Charging a run's
`usage` after it ended cannot promise that: every run started before the others charged
sees the whole budget as its own.

A request whose reply reports no tokens (no `usage`), or that got no reply at all (an
error, Ctrl-C: it may have been paid for all the same), is charged its whole reservation:
a ledger that cannot see what was spent assumes the most, never nothing.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import anthropic

from ..core.limits import Limits, Stop
from ..core.loop import AgentRun, ToolLike
from ..core.result import RunResult, Turn
from ..i18n import Message

MAX_TOKENS = 1024
"""`max_tokens` of the requests `Ledger.run` sends: each reserves its input plus this."""


class Ledger:
    """Tokens spent (`used`) and reserved by requests in flight (`held`), against `budget`.

    Thread-safe: every change holds the ledger's lock.
    """

    def __init__(self, budget: int, used: int = 0) -> None:
        for name, value in (("budget", budget), ("used", used)):
            if type(value) is not int or value < 0:
                raise ValueError(f"Ledger({name}={value!r}): use a whole number >= 0")
        self.budget, self.used = budget, used
        self._lock = threading.Lock()
        self._holds: dict[int, int] = {}
        self._numbers = itertools.count(1)

    def __repr__(self) -> str:
        return f"Ledger(budget={self.budget}, used={self.used}, held={self.held})"

    @property
    def held(self) -> int:
        """Tokens reserved by requests sent and not yet settled."""
        return sum(self._holds.values())

    @property
    def remaining(self) -> int:
        """Tokens neither spent nor reserved, never below 0."""
        return max(0, self.budget - self.used - self.held)

    def reserve(self, tokens: int) -> int | None:
        """Reserve `tokens` if that many remain: a hold's number, else `None` (nothing
        reserved). Check and reservation are one step under the lock."""
        if type(tokens) is not int or tokens < 0:
            raise ValueError(f"reserve({tokens!r}): use a whole number of tokens >= 0")
        with self._lock:
            if tokens > self.budget - self.used - sum(self._holds.values()):
                return None
            number = next(self._numbers)
            self._holds[number] = tokens
            return number

    def settle(self, hold: int, spent: int | None) -> None:
        """Charge what a request really cost (`spent`) and give back the rest of `hold`;
        `None` (the cost is not known) charges all that was reserved."""
        with self._lock:
            reserved = self._holds.pop(hold)
            self.used += reserved if spent is None else spent

    def charge(self, usage: Mapping[str, int]) -> None:
        """Add a run's `usage` (a `RunResult.usage`) to what was spent."""
        self.add(sum(usage.values()))

    def charge_turn(self, turn: Turn) -> None:
        """Add one turn's tokens (as `on_turn=ledger.charge_turn` to `run_agent`)."""
        self.add(turn.input_tokens + turn.cache_creation_input_tokens
                 + turn.cache_read_input_tokens + turn.output_tokens)

    def add(self, tokens: int) -> None:
        """Add `tokens` to what was spent, after the fact: nothing was reserved for them."""
        with self._lock:
            self.used += tokens

    def run(self, client: anthropic.Anthropic, task_or_messages: str | Sequence[dict[str, Any]],
            *, tools: Iterable[ToolLike] = (), max_turns: int | None = 10,
            max_tokens: int = MAX_TOKENS, system: str | list[dict[str, Any]] | None = None,
            ) -> RunResult:  # fmt: skip
        """`run_agent`, every request paid from this ledger: reserved before it is sent
        (its input counted with `count_tokens`, plus `max_tokens`), settled on its reply.
        Stops with `token_budget` before a request the ledger cannot cover."""
        run = AgentRun(client, task_or_messages, tools=tools, max_tokens=max_tokens,
                       system=system, limits=Limits(max_turns=max_turns, token_budget=None))
        while not run.finished and not run.gate_closed():
            stop, hold = self._hold_next(run)
            if stop is not None:
                run.finish(stop)
                break
            assert hold is not None
            before, turn = run.tokens_used, None
            try:
                turn = run.step()
            finally:
                spent = run.tokens_used - before if turn is not None else 0
                self.settle(hold, spent if spent > 0 else None)
        assert run.result is not None  # finished: a stop was reached
        return run.result

    def _hold_next(self, run: AgentRun) -> tuple[Stop | None, int | None]:
        """Reserve the next request's most: (None, hold), or (the stop, None)."""
        body = run.request()
        del body["max_tokens"]
        try:
            needed = run.client.messages.count_tokens(**body).input_tokens + run.max_tokens
        except anthropic.APIError as e:
            error = f"{type(e).__name__} {getattr(e, 'status_code', '')}".strip()
            return Stop("api_error", Message("count_tokens failed: {error}", error=error),
                        error=e), None
        hold = self.reserve(needed)
        if hold is None:
            return Stop("token_budget", Message(
                "the shared ledger has {left:,} of {limit:,} tokens left; the next request "
                "may cost {needed:,}", left=self.remaining, limit=self.budget,
                needed=needed)), None
        return None, hold


def final_text(result: RunResult) -> str:
    """The text of the run's last assistant message ("" when there is none)."""
    for message in reversed(result.messages):
        if message["role"] == "assistant":
            content: Any = message["content"]
            if isinstance(content, str):
                return content
            return "".join(b.get("text", "") for b in content if b.get("type") == "text")
    return ""
