"""Answer the `tool_use` blocks a stopped run left without a `tool_result`.

A run that stops right after the model asked for tools (the repeat gate in `stop` mode,
a reply cut off at `max_tokens`, an API error) ends with an assistant message whose calls
were never answered. The API rejects the next request with a 400 ("tool_use ids were found
without tool_result blocks immediately after"). `close_dangling` answers each such call
with an `is_error` result saying it was not run, so the history can be sent again.
"""

from __future__ import annotations

import copy
from typing import Any

DEFAULT_REASON = "the run stopped before this call was made"


def not_run(tool_use_id: str, reason: str) -> dict[str, Any]:
    """The `tool_result` for a call that was never made."""
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": f"not run: {reason}",
        "is_error": True,
    }


def _blocks(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _type(block: Any) -> Any:
    return block.get("type") if isinstance(block, dict) else getattr(block, "type", None)


def _id(block: Any) -> Any:
    return block.get("id") if isinstance(block, dict) else getattr(block, "id", None)


def close_dangling(
    messages: list[dict[str, Any]], reason: str = DEFAULT_REASON
) -> list[dict[str, Any]]:
    """A copy of `messages` in which every `tool_use` of the last assistant turn is answered.

    Missing results go into the user message right after that turn (created if the
    history ends with it), before any other content and in call order. Existing results
    are kept. Idempotent: a history with nothing dangling comes back equal.
    """
    out = list(messages)
    roles = [m.get("role") if isinstance(m, dict) else None for m in out]
    if "assistant" not in roles:
        return out
    last = len(roles) - 1 - roles[::-1].index("assistant")
    if last < len(out) - 2:
        return out
    calls = [b for b in _blocks(out[last]) if _type(b) == "tool_use"]
    if not calls:
        return out

    if last == len(out) - 1:
        follow: dict[str, Any] = {"role": "user", "content": []}
        out.append(follow)
    else:
        follow = copy.copy(out[last + 1])
        if follow.get("role") != "user":
            return out
        content = follow.get("content")
        follow["content"] = (
            [{"type": "text", "text": content}] if isinstance(content, str) and content
            else list(_blocks(follow))
        )
        out[last + 1] = follow

    blocks: list[Any] = follow["content"]
    answered = {b.get("tool_use_id"): b for b in blocks if _type(b) == "tool_result"}
    if all(_id(c) in answered for c in calls):
        return list(messages)
    results = [answered.get(_id(c)) or not_run(_id(c), reason) for c in calls]
    extra = [b for b in blocks if _type(b) == "tool_result" and b not in results]
    rest = [b for b in blocks if _type(b) != "tool_result"]
    follow["content"] = results + extra + rest
    return out
