"""Task budgets (`output_config.task_budget`, beta `task-budgets-2026-03-13`): the
countdown the model sees.

platform.claude.com/docs/en/build-with-claude/task-budgets: the budget covers "a full
agentic loop, including thinking, tool calls, tool results, and output"; `remaining`
"Defaults to total when omitted"; "Claude sees a budget-countdown marker injected
server-side ... updates as the model generates thinking, tool calls, and output, and as
it processes tool results". The budget is advisory: the API does not stop the loop when
it is spent, the model paces itself. So the fake stops nothing either; a `FunctionModel`
reads the countdown as `request.task_budget_remaining` and decides, as the live model
does, when to wrap up. A script plays a model that already did.

The agentic loop, as the fake counts it: every message after the last user message that
holds text (the human's turn), counted with the fake's token estimate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import FAKE_WORDING, BadRequest
from .usage import MESSAGE_OVERHEAD, block_tokens


def check_task_budget(config: Any) -> None:
    """Refuse (400) a `task_budget` that is not `{"type": "tokens", "total": n > 0,
    "remaining": 0 ≤ m ≤ n}` (the fake's wording; the live limits are not documented)."""
    budget = config.get("task_budget") if isinstance(config, Mapping) else None
    if budget is None:
        return
    where = "output_config.task_budget"
    if not isinstance(budget, Mapping) or budget.get("type") != "tokens":
        raise BadRequest(f"{where}.type: Input should be 'tokens'{FAKE_WORDING}")
    total, remaining = budget.get("total"), budget.get("remaining")
    if not isinstance(total, int) or isinstance(total, bool) or total < 1:
        raise BadRequest(f"{where}.total: Input should be a whole number ≥ 1{FAKE_WORDING}")
    if remaining is not None and (not isinstance(remaining, int) or isinstance(remaining, bool)
                                  or not 0 <= remaining <= total):
        raise BadRequest(f"{where}.remaining: Input should be a whole number from 0 to "
                         f"total{FAKE_WORDING}")


def task_budget_remaining(body: Mapping[str, Any]) -> int | None:
    """The countdown the model sees for request `body`, or None without a task budget."""
    config = body.get("output_config")
    budget = config.get("task_budget") if isinstance(config, Mapping) else None
    if not isinstance(budget, Mapping):
        return None
    start = budget.get("remaining")
    start = budget["total"] if start is None else start
    return max(0, int(start) - _loop_tokens(body.get("messages") or []))


def _loop_tokens(messages: list[Any]) -> int:
    start = 0
    for index, message in enumerate(messages):
        if isinstance(message, Mapping) and message.get("role") == "user" and _has_text(message):
            start = index + 1
    spent = 0
    for message in messages[start:]:
        content = message.get("content") if isinstance(message, Mapping) else None
        blocks = [content] if isinstance(content, str) else content or []
        spent += MESSAGE_OVERHEAD + sum(block_tokens(block) for block in blocks)
    return spent


def _has_text(message: Mapping[str, Any]) -> bool:
    content = message.get("content")
    if isinstance(content, str):
        return bool(content)
    return isinstance(content, list) and any(
        isinstance(block, Mapping) and block.get("type") == "text" for block in content)
