"""Lesson 03's checker: the fork itself, from `stop_reason` to what the loop does next.

    check_next_action(next_action)

`next_action(stop_reason) -> "done" | "run_tools" | "resume" | "stop"`. It is compared with
`looplab.STOP_REASONS` on every value of the SDK's `StopReason`, the beta-only
`compaction`, and a value from the future, drawn afresh on every run (anything not in
the table stops).
"""

from __future__ import annotations

import random
import secrets
import typing
from collections.abc import Callable
from typing import Any

import anthropic

from ..core.loop import STOP_REASONS
from ..i18n import Message, _
from .common import name_of, raised
from .scorecard import Scorecard, verdict

FUTURE = "some_future_reason"
MEANING = {
    "end_turn": Message("the model finished its answer"),
    "tool_use": Message("the model wants the results of your tools before it goes on"),
    "pause_turn": Message("the server paused a turn it has not finished; nothing is yours to "
                          "run"),
    "compaction": Message("the server compacted the context and has not answered yet"),
    "max_tokens": Message("the reply was cut off at the request's max_tokens"),
    "stop_sequence": Message("the reply reached one of your stop_sequences"),
    "refusal": Message("the model declined to answer"),
    "model_context_window_exceeded": Message("the reply filled the model's context window"),
    FUTURE: Message("a value newer than your code"),
}


def _drawn() -> str:
    """A future value drawn now, so no table written for the checker's values answers it."""
    return f"{random.choice(('future', 'new', 'beta'))}_{secrets.token_hex(3)}_reason"


def check_next_action(fn: Callable[[str], Any]) -> Scorecard:
    """Compare `fn` with `looplab.STOP_REASONS` on every value; one line per value."""
    card = Scorecard(f"check_next_action({name_of(fn)})")
    values = [*typing.get_args(anthropic.types.StopReason), "compaction", FUTURE]
    for value in values:
        expected = STOP_REASONS.get(value, "stop")
        try:
            got = fn(_drawn() if value == FUTURE else value)
        except Exception as e:
            card.append(verdict(value, False, raised(e)))
            continue
        meaning = MEANING.get(value, MEANING[FUTURE])
        card.append(verdict(value, got == expected,
                            _("got {got!r}, but {meaning}").format(got=got, meaning=meaning)))
    return card
