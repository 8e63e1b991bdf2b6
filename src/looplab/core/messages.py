"""The messages the loop writes: the first one, the assistant's reply, the tool results.

The rules they follow are the article's: the assistant content is appended whole (minus
text blocks the API refuses to take back), and every result of a turn goes into one user
message of `tool_result` blocks, in call order, each with its call's `tool_use_id`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..history.dangling import _close_dangling
from ..i18n import worded
from .result import ToolCall


def first_messages(task_or_messages: str | Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A task becomes one user message; a previous run's messages go on, with calls it
    left unanswered answered first."""
    if isinstance(task_or_messages, str):
        return [{"role": "user", "content": task_or_messages}]
    given = list(task_or_messages) if isinstance(task_or_messages, Sequence) else []
    messages = [dict(m) for m in given if isinstance(m, dict)]
    if given and len(messages) == len(given):
        return _close_dangling(messages,
                              worded("the previous run stopped before this call was made"))
    raise TypeError(
        "task_or_messages must be a task (str) or a non-empty messages list (e.g. "
        f"result.messages), got {type(task_or_messages).__name__}"
    )


def assistant_content(response: Any) -> list[dict[str, Any]]:
    """The reply's content blocks as plain dicts, whole, minus blank text blocks."""
    content = [block.to_dict(mode="json") for block in response.content]
    return [b for b in content if not blank_text(b)]


def results_message(calls: Sequence[ToolCall]) -> dict[str, Any]:
    """One user message answering every call of a turn, in call order."""
    return {"role": "user", "content": [tool_result(c) for c in calls]}


def tool_result(c: ToolCall) -> dict[str, Any]:
    """The `tool_result` block that answers call `c` (same id as its `tool_use`)."""
    block = {"type": "tool_result", "tool_use_id": c.id, "content": c.result}
    if c.is_error:
        block["is_error"] = True
    return block


def blank_text(block: dict[str, Any]) -> bool:
    """A text block the API refuses to take back ("text content blocks must be
    non-empty"): dropped, so a run that ends on it leaves a history that can go on."""
    if block.get("type") != "text":
        return False
    text = block.get("text")
    return not isinstance(text, str) or not text.strip()
