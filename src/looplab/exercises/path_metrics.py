"""Lesson 21's checker: evals over the path, read from traces.

    check_path_metrics(path_metrics)

`path_metrics(trials) -> dict`: `trials` is a list of `(passed, spans)` pairs, one per
trial: did its answer pass, and the finished OpenTelemetry spans of its run
(`looplab.lessons.traces.traced_run`). Return
`{"tool_error_rate": …, "recovery_rate": …, "turns_per_success": …}`: the share of all
`execute_tool` spans, over every trial, whose status is ERROR; the share of the trials
with at least one such span that still passed (`None` when no trial had one); every
`chat` span (one per request: a turn) of every trial divided by the number of passing
trials (`None` when none passed). A span's kind is its `gen_ai.operation.name`.

The traces are made here, by running scripted models through the real SDK and the fake
API, so they are what the lesson's tracer records from the wire.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ..core.limits import Limits
from ..core.tools import ToolError, tool
from ..fake import FakeClock, ScriptedModel, call, fake_client, reply, say
from ..i18n import Message
from ..lessons.traces import traced_run
from .common import name_of, numbers_check
from .scorecard import Scorecard

RIGHT = "right"
# A trial's script: the model's replies, in order.
CLEAN = [call("lookup", key="good"), say(RIGHT)]
RECOVERED = [call("lookup", key="bad"), call("lookup", key="good"), say(RIGHT)]
STUCK = [call("lookup", key="bad")] * 4  # the repeat gate blocks the 3rd, stops at the 4th
WRONG = [call("lookup", key="good"), say("wrong")]
DIRECT = [say(RIGHT)]


def _trial(script: list[Any]) -> tuple[bool, list[Any]]:
    """One scripted run, traced: (did it end with the right answer, its spans)."""
    clock = FakeClock()

    @tool
    def lookup(key: str) -> str:
        """Look a key up."""
        clock.advance(0.1)
        if key != "good":
            raise ToolError(f"no such key: {key}")
        return "found"

    client = fake_client(ScriptedModel([reply(s, delay_s=0.5) for s in script]), clock=clock)
    traced = traced_run(client, "Look it up.", tools=[lookup], clock=clock,
                        limits=Limits(max_turns=6))
    last = traced.result.messages[-1]["content"] if traced.result.done else []
    text = "".join(b.get("text", "") for b in last if isinstance(b, dict))
    return traced.result.done and text == RIGHT, traced.spans


Case = tuple[Message, list[list[Any]], dict[str, Any]]
CASES: list[Case] = [
    (Message("a clean pass, an error recovered from, a run stopped by the repeat gate"),
     [CLEAN, RECOVERED, STUCK],
     {"tool_error_rate": 5 / 7, "recovery_rate": 1 / 2, "turns_per_success": 9 / 2}),
    (Message("no tool error: recovery_rate is None"),
     [CLEAN, CLEAN],
     {"tool_error_rate": 0.0, "recovery_rate": None, "turns_per_success": 2.0}),
    (Message("no trial passed: turns_per_success is None"),
     [STUCK, WRONG],
     {"tool_error_rate": 4 / 5, "recovery_rate": 0.0, "turns_per_success": None}),
    (Message("a trial with no tool call; gate spans are not turns"),
     [DIRECT, RECOVERED],
     {"tool_error_rate": 1 / 2, "recovery_rate": 1.0, "turns_per_success": 2.0}),
]  # fmt: skip


def check_path_metrics(fn: Callable[[Any], Any]) -> Scorecard:
    card = Scorecard(f"check_path_metrics({name_of(fn)})")
    for name, scripts, want in CASES:
        trials = [_trial(script) for script in scripts]
        card.append(numbers_check(name, partial(fn, trials), want))
    return card
