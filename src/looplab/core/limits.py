"""The stop gates' settings: one frozen object, `None` switches a gate off."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, kw_only=True)
class Limits:
    """When a run must stop even though the model has not said `end_turn`.

    Every gate can be switched off with `None`. A *turn* is one model request.
    """

    max_turns: int | None = 10
    """Model requests allowed in one run. The request after the last allowed one is not sent."""

    token_budget: int | None = 200_000
    """Tokens for the whole run: input + cache_creation_input + cache_read_input + output,
    summed over every response. Checked before each request."""

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

    tool_timeout_s: float | None = 30
    """Seconds one tool call may take before its result becomes an `is_error` timeout.
    A tool runs in a thread by default, and a thread cannot be killed: it runs on in the
    background and its late result is dropped (`looplab.running.calls` caps how many may). A
    tool declared `@tool(isolate="process")`, and a subprocess started with
    `run_subprocess`, is killed together with every process it started."""

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
