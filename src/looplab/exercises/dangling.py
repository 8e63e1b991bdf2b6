"""Lesson 05's checker: answer the calls a stopped run left without a result.

    check_close_dangling(my_close_dangling)

`fn(messages) -> messages`: `messages` is a list of plain dicts in the API's shape. Every
unanswered `tool_use` of the last assistant message gets an `is_error` `tool_result`, so
the history can be sent again.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from ..fake import say
from ..i18n import Message, _
from .common import TASK, World, first_problem, name_of, raised, text_of
from .scorecard import Check, Scorecard, verdict

NAMES = [
    Message("answers every dangling tool_use"),
    Message("one user message right after, in call order"),
    Message('each result has "is_error": True and a reason'),
    Message("earlier messages untouched"),
    Message("a complete history comes back unchanged"),
    Message("running it twice changes nothing more"),
    Message("the API accepts the closed history"),
]


def _histories() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(a history ending in an unanswered parallel call, a complete one)."""
    first_turn: list[dict[str, Any]] = [
        {"role": "user", "content": TASK},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Running the login tests."},
                {"type": "tool_use", "id": "toolu_01", "name": "run_tests",
                 "input": {"module": "login"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "1 failed, 2 passed"}
            ],
        },
    ]  # fmt: skip
    dangling: list[dict[str, Any]] = [
        *first_turn,
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I'll read the log and the source."},
                {"type": "tool_use", "id": "toolu_02", "name": "read_file",
                 "input": {"path": "logs/test_login.log"}},
                {"type": "tool_use", "id": "toolu_03", "name": "read_file",
                 "input": {"path": "src/login.py"}},
            ],
        },
    ]  # fmt: skip
    complete: list[dict[str, Any]] = [
        *first_turn,
        {"role": "assistant", "content": [{"type": "text", "text": "One test fails."}]},
    ]
    return dangling, complete


def check_close_dangling(fn: Callable[[list[dict[str, Any]]], Any]) -> Scorecard:
    """Check `fn(messages) -> messages`, which answers the last message's unanswered calls."""
    card = Scorecard(f"check_close_dangling({name_of(fn)})")
    dangling, complete = _histories()
    try:
        closed = fn(copy.deepcopy(dangling))
        again = fn(copy.deepcopy(closed)) if isinstance(closed, list) else None
        kept = fn(copy.deepcopy(complete))
    except Exception as e:
        card.extend(Check(n, False, raised(e)) for n in NAMES)
        return card
    if not isinstance(closed, list) or not isinstance(kept, list):
        got = type(closed if not isinstance(closed, list) else kept).__name__
        why = _("returned {type}, not a messages list").format(type=got)
        card.extend(Check(n, False, why) for n in NAMES)
        return card
    card.extend(_judge(closed, again, kept, dangling, complete))
    world = World([say("Resuming.")])
    try:
        world.send(closed)
        card.append(Check(NAMES[6], True))
    except Exception as e:
        card.append(Check(NAMES[6], False, world.explain(e)))
    return card


def _judge(
    closed: list[Any], again: Any, kept: list[Any],
    dangling: list[dict[str, Any]], complete: list[dict[str, Any]],
) -> list[Check]:
    problem = first_problem(closed)
    follow = closed[4] if len(closed) > 4 and isinstance(closed[4], Mapping) else {}
    content = follow.get("content")
    blocks: list[Any] = content if isinstance(content, list) else []
    results = [b for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_result"]
    order_ok = (
        len(closed) == 5
        and follow.get("role") == "user"
        and [b.get("tool_use_id") for b in results] == ["toolu_02", "toolu_03"]
    )
    flags_ok = bool(results) and all(
        b.get("is_error") is True and str(text_of(b.get("content")) or "").strip() for b in results
    )
    return [
        verdict(NAMES[0], problem is None, problem or ""),
        verdict(NAMES[1], order_ok,
              _("after the dangling call came {n} message(s), not one user message answering "
                "toolu_02 and toolu_03 in that order").format(n=max(0, len(closed) - 4))),
        verdict(NAMES[2], flags_ok,
              _("a result is not marked as an error, or its content does not say why the call "
                "was not run")),
        verdict(NAMES[3], closed[:4] == dangling,
              _("the messages before the new one changed")),
        verdict(NAMES[4], kept == complete,
              _("a history whose last assistant message has nothing unanswered changed")),
        verdict(NAMES[5], again == closed,
              _("running it on its own result added more (the calls were already answered)")),
    ]  # fmt: skip
