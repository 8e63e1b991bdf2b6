"""The stop gates: their settings (`Limits`, `None` switches a gate off), which gate
forbids another request (`closed_gate`), and the repeated-call counter (`Repeats`).

With the normal finish (`stop_reason == "end_turn"`) they are the article's five stop
conditions. The loop asks `closed_gate` at the top of every turn, and `check_repeats`
before running a turn's tools.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..i18n import Message, worded


@dataclass(frozen=True, kw_only=True)
class Limits:
    """When a run must stop even though the model has not said `end_turn`.

    Every gate can be switched off with `None`. A *turn* is one model request.
    """

    max_turns: int | None = 10
    """Model requests allowed in one run. The request after the last allowed one is not sent."""

    token_budget: int | None = 200_000
    """Tokens for the whole run: input + cache_creation_input + cache_read_input + output,
    summed over every response. Checked before each request. A reply without usable counts
    (no `usage`, a count missing or negative) stops the run: a gate that cannot measure
    fails closed."""

    timeout_s: float | None = 300
    """Wall-clock seconds for the whole run, checked before each request (a hung tool is
    caught by `tool_timeout_s`, not by this)."""

    max_repeats: int | None = 3
    """Identical tool calls (same name, same canonical JSON input) allowed to reach this
    count: the `max_repeats`-th identical call trips the gate."""

    repeat_window: Literal["cumulative", "consecutive"] = "cumulative"
    """`cumulative` counts identical calls over the whole run (the article's choice);
    `consecutive` resets a call's count when any other call comes in between."""

    on_repeat: Literal["block_then_stop", "stop"] = "block_then_stop"
    """`stop` ends the run at once, like the article's loop. `block_then_stop` does not run the
    repeated call, answers it with an `is_error` result, and stops only if the model
    repeats it once more."""

    tool_timeout_s: float | None = None
    """Seconds any one tool call may take before its result becomes an `is_error` timeout,
    for every tool that sets no `@tool(timeout_s=...)` of its own. Off by default, as in the
    article: a tool runs in the loop's own thread. With a timeout, a call runs in a thread
    of its own, which cannot be killed: it runs on in the background and its late result is
    dropped. A tool declared `@tool(isolate="process")` is killed instead, together with
    every process it started."""

    count_tokens: bool = False
    """Pre-flight: ask `count_tokens` before each request and stop *before* a request whose
    input would cross `token_budget` (costs one extra, free, request per turn)."""

    def __post_init__(self) -> None:
        # Catch a wrong type or a negative bound here, not as an odd stop mid-run.
        for name in ("max_turns", "token_budget", "max_repeats"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 0):
                raise ValueError(f"Limits({name}={value!r}): use a whole number >= 0, or None")
        for name in ("timeout_s", "tool_timeout_s"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value) or value < 0
            ):
                raise ValueError(f"Limits({name}={value!r}): use a finite number of seconds "
                                 ">= 0, or None to switch the gate off")
        if self.max_repeats == 0:
            raise ValueError("Limits(max_repeats=0) would block every call: use 1 or more, "
                             "or None to switch the repeat gate off")
        if self.repeat_window not in ("cumulative", "consecutive"):
            raise ValueError(f"Limits(repeat_window={self.repeat_window!r}): use "
                             "'cumulative' or 'consecutive'")
        if self.on_repeat not in ("block_then_stop", "stop"):
            raise ValueError(f"Limits(on_repeat={self.on_repeat!r}): use 'block_then_stop' "
                             "or 'stop'")
        if not isinstance(self.count_tokens, bool):
            raise ValueError(f"Limits(count_tokens={self.count_tokens!r}): use True or False")


@dataclass(frozen=True)
class Stop:
    """Why a run stopped: its status, and a few words on why (`detail`: a `Message`, English
    as a value, in the learner's language when shown), and the API's exception if any."""

    status: str
    detail: str = ""
    """A `Message`: English as a value, in the learner's language when shown."""
    error: BaseException | None = None


GATES = {
    "max_turns": "turns",
    "token_budget": "tokens",
    "timeout": "time",
    "repeated_call": "repeats",
}
"""Each gate's status (`RunResult.status` when it stopped the run) -> what it counts."""


def closed_gate(limits: Limits, turns: int, tokens: int, elapsed_s: float) -> Stop | None:
    """The first gate that forbids another request, with a few words on why."""
    if limits.max_turns is not None and turns >= limits.max_turns:
        return Stop("max_turns", Message("{used} of {limit} turns used",
                                         used=turns, limit=limits.max_turns))
    if limits.token_budget is not None and tokens >= limits.token_budget:
        return Stop("token_budget", Message("{used:,} of {limit:,} tokens used",
                                            used=tokens, limit=limits.token_budget))
    if limits.timeout_s is not None and elapsed_s >= limits.timeout_s:
        return Stop("timeout", Message("{used:g} s of {limit:g} s",
                                       used=elapsed_s, limit=limits.timeout_s))
    return None


USAGE_FIELDS = (
    "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"
)


def count_usage(usage: Any, totals: dict[str, int],
                limits: Limits) -> tuple[dict[str, int], Stop | None]:
    """Add a reply's `usage` to `totals`; return its counts and, when a token budget is set
    and the reply carries no usable counts (no `usage`, a count missing, negative or not a
    whole number), the stop that says so: a gate that cannot measure fails closed."""
    counts, wrong = {}, []
    for name in USAGE_FIELDS:
        n = getattr(usage, name, None)
        if n is None and name.startswith("cache_"):
            n = 0  # the cache fields are absent when caching is off
        if type(n) is not int or n < 0:
            wrong.append(f"{name}={n!r}")
            n = 0
        counts[name] = n
        totals[name] += n
    if not wrong or limits.token_budget is None:
        return counts, None
    what = "no usage" if usage is None else ", ".join(wrong)
    return counts, Stop("token_budget", Message(
        "the reply carried no usable token counts ({what}), so the token budget cannot be "
        "enforced; the run stops. Use an endpoint that reports usage, or set "
        "Limits(token_budget=None) to run without this gate", what=what))


def preflight(client: Any, request: dict[str, Any], limits: Limits, used: int) -> Stop | None:
    """With `Limits.count_tokens`: the stop before a request whose input would cross the
    token budget, asked of the API's free `count_tokens` (raises its `APIError`)."""
    if limits.token_budget is None:
        return None
    body = {k: v for k, v in request.items() if k != "max_tokens"}
    needed = client.messages.count_tokens(**body).input_tokens
    if used + needed <= limits.token_budget:
        return None
    return Stop("token_budget", Message(
        "pre-flight: the next request needs {needed:,} input tokens; {used:,} used of "
        "{limit:,}", needed=needed, used=used, limit=limits.token_budget))


@dataclass
class Repeats:
    """How often each (tool name, input) call has been made: the article's `seen`, counted
    by `check_repeats`.

    `cumulative` counts over the whole run, so a legitimate re-read after an edit counts
    too. `consecutive` counts a call only while nothing else comes in between (in call
    order, across turns); any other call starts the counting again.
    """

    window: str = "cumulative"
    counts: dict[str, int] = field(default_factory=dict)
    """Each call's count, by its name and its input as canonical JSON."""
    last: str | None = None
    highest: int = 0
    """The highest count any one call has reached."""


class Call(Protocol):
    """What the repeat gate reads of a call and how it answers one (a `ToolCall`)."""

    name: str
    input: Any

    def answer(self, result: Any, *, is_error: bool, outcome: str = ...) -> None: ...


def check_repeats(repeats: Repeats, limits: Limits, calls: Sequence[Call]) -> Stop | None:
    """Count each call. The `max_repeats`-th identical call is blocked (answered without
    running it); returns the stop when the run must stop instead."""
    for c in calls:  # the name, and the input as canonical JSON: equal inputs, equal text
        canonical = json.dumps(c.input, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        key = f"{c.name} {canonical}"
        if repeats.window == "consecutive" and key != repeats.last:
            repeats.counts.clear()
        n = repeats.counts[key] = repeats.counts.get(key, 0) + 1
        repeats.last, repeats.highest = key, max(repeats.highest, n)
        if limits.max_repeats is None or n < limits.max_repeats:
            continue
        if limits.on_repeat == "stop" or n > limits.max_repeats:
            return Stop("repeated_call", Message("{call}: identical call made {n} times",
                                                 call=key, n=n))
        c.answer(worded("not run: identical call made {n} times; change approach", n=n),
                 is_error=True, outcome="blocked")
    return None
