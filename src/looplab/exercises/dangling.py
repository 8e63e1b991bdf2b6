"""Lesson 05's checker: answer the calls a stopped run left without a result.

    check_close_dangling(my_close_dangling)

`fn(messages) -> messages`: `messages` is a list of plain dicts in the API's shape. Every
unanswered `tool_use` of the last assistant message gets an `is_error` `tool_result`, so
the history can be sent again. The histories are drawn afresh at each check (ids, how many
calls, which files), several of them: an answer must close any history, not the ones seen.
"""

from __future__ import annotations

import copy
import random
import secrets
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


FILES = ("logs/test_login.log", "src/login.py", "src/session.py", "tests/test_login.py",
         "README.md", "src/config.py")  # fmt: skip
DRAWS = 6
"""Histories drawn for each check: a different number of calls, ids and files each time."""


def _tool_id() -> str:
    return f"toolu_{secrets.token_hex(6)}"


def _histories() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(a history ending in unanswered parallel calls, a complete one), drawn afresh: the
    ids, how many calls and which files are new each time, so no answer can be written
    for the inputs in advance."""
    first = _tool_id()
    first_turn: list[dict[str, Any]] = [
        {"role": "user", "content": TASK},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Running the login tests."},
                {"type": "tool_use", "id": first, "name": "run_tests",
                 "input": {"module": "login"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": first,
                 "content": f"{random.randint(1, 5)} failed, {random.randint(0, 9)} passed"}
            ],
        },
    ]  # fmt: skip
    paths = random.sample(FILES, random.randint(1, 3))
    dangling: list[dict[str, Any]] = [
        *first_turn,
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I'll read " + " and ".join(paths) + "."},
                *({"type": "tool_use", "id": _tool_id(), "name": "read_file",
                   "input": {"path": path}} for path in paths),
            ],
        },
    ]  # fmt: skip
    complete: list[dict[str, Any]] = [
        *first_turn,
        {"role": "assistant", "content": [{"type": "text", "text": "One test fails."}]},
    ]
    return dangling, complete


def check_close_dangling(fn: Callable[[list[dict[str, Any]]], Any]) -> Scorecard:
    """Check `fn(messages) -> messages`, which answers the last message's unanswered calls,
    on `DRAWS` histories drawn now (`_histories`); a check passes when it holds for each."""
    card = Scorecard(f"check_close_dangling({name_of(fn)})")
    verdicts: list[Check] = []
    closed_once: list[Any] = []
    for _draw in range(DRAWS):
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
        judged = _judge(closed, again, kept, dangling, complete)
        pairs = zip(verdicts or judged, judged, strict=True)
        verdicts = [first if not first.passed else now for first, now in pairs]  # the first ✗
        closed_once = closed_once or closed
    card.extend(verdicts)
    world = World([say("Resuming.")])
    try:
        world.send(closed_once)
        card.append(Check(NAMES[6], True))
    except Exception as e:
        card.append(Check(NAMES[6], False, world.explain(e)))
    return card


def _judge(
    closed: list[Any], again: Any, kept: list[Any],
    dangling: list[dict[str, Any]], complete: list[dict[str, Any]],
) -> list[Check]:
    problem = first_problem(closed)
    n = len(dangling)
    calls = [b["id"] for b in dangling[-1]["content"] if b.get("type") == "tool_use"]
    follow = closed[n] if len(closed) > n and isinstance(closed[n], Mapping) else {}
    content = follow.get("content")
    blocks: list[Any] = content if isinstance(content, list) else []
    results = [b for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_result"]
    order_ok = (
        len(closed) == n + 1
        and follow.get("role") == "user"
        and [b.get("tool_use_id") for b in results] == calls
    )
    flags_ok = bool(results) and all(
        b.get("is_error") is True and str(text_of(b.get("content")) or "").strip() for b in results
    )
    return [
        verdict(NAMES[0], problem is None, problem or ""),
        verdict(NAMES[1], order_ok,
              _("after the dangling calls came {n} message(s), not one user message answering "
                "{ids} in that order").format(n=max(0, len(closed) - n), ids=", ".join(calls))),
        verdict(NAMES[2], flags_ok,
              _("a result is not marked as an error, or its content does not say why the call "
                "was not run")),
        verdict(NAMES[3], closed[:n] == dangling,
              _("the messages before the new one changed")),
        verdict(NAMES[4], kept == complete,
              _("a history whose last assistant message has nothing unanswered changed")),
        verdict(NAMES[5], again == closed,
              _("running it on its own result added more (the calls were already answered)")),
    ]  # fmt: skip
