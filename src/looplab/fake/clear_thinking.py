"""Thinking block clearing (`clear_thinking_20251015`, context editing's edit for thinking):
the API drops the thinking of older assistant turns before the model sees the prompt.

From platform.claude.com/docs/en/build-with-claude/context-editing ("Thinking block
clearing") and the SDK's `BetaClearThinking20251015EditParam` /
`BetaClearThinking20251015EditResponse`:

- `keep` is `{"type": "thinking_turns", "value": N}` with N > 0: the newest N assistant
  turns that carry thinking keep it, older ones lose their `thinking` and
  `redacted_thinking` blocks. `"all"` (or `{"type": "all"}`) keeps every one. Without
  `keep`: `{"type": "thinking_turns", "value": 1}`.
- "An assistant conversation turn may include multiple content blocks (e.g. when using
  tools) and multiple thinking blocks": a turn runs from one user message to the next
  user message that is not only tool results, so a tool-use loop is one turn.
- The edit manages thinking "when extended thinking is enabled", and when it is combined
  with other edits it must come first in `edits`; the fake refuses both mistakes (the
  sentences are the fake's).
- The reply's `context_management.applied_edits` says `{"type": "clear_thinking_20251015",
  "cleared_thinking_turns": n, "cleared_input_tokens": t}`; nothing when nothing was
  cleared. The client's history stays whole, as with every edit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import FAKE_WORDING, BadRequest
from .usage import estimate_tokens

CLEAR_THINKING = "clear_thinking_20251015"
DEFAULT_KEEP = {"type": "thinking_turns", "value": 1}
_THINKING = ("thinking", "redacted_thinking")


def check_order(edits: list[Any]) -> None:
    """`clear_thinking_20251015` must be the first edit when there are several."""
    kinds = [edit.get("type") if isinstance(edit, Mapping) else None for edit in edits]
    if CLEAR_THINKING in kinds[1:]:
        raise BadRequest(f"context_management.edits: {CLEAR_THINKING} must be listed first "
                         "when it is combined with other edits" + FAKE_WORDING)


def clear_thinking(body: dict[str, Any], edit: Mapping[str, Any],
                   where: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The prompt with the thinking of all but the newest `keep` thinking turns removed,
    and the applied edit (None when nothing was cleared)."""
    keep = _keep(edit.get("keep"), where)
    thinking = body.get("thinking")
    if not isinstance(thinking, Mapping) or thinking.get("type") not in ("enabled", "adaptive"):
        raise BadRequest(f"{where}: {CLEAR_THINKING} requires thinking to be enabled"
                         + FAKE_WORDING)
    turns = [turn for turn in _assistant_turns(body["messages"])
             if any(_has_thinking(body["messages"][i]) for i in turn)]
    cleared = turns[:max(0, len(turns) - keep)] if keep is not None else []
    if not cleared:
        return body, None
    dropped = {i for turn in cleared for i in turn}
    edited = {**body, "messages": [_without_thinking(message) if i in dropped else message
                                   for i, message in enumerate(body["messages"])]}
    return edited, {"type": CLEAR_THINKING, "cleared_thinking_turns": len(cleared),
                    "cleared_input_tokens": estimate_tokens(body) - estimate_tokens(edited)}


def _keep(value: Any, where: str) -> int | None:
    """How many thinking turns keep their thinking; None for all."""
    if value is None:
        value = DEFAULT_KEEP
    if value == "all" or (isinstance(value, Mapping) and dict(value) == {"type": "all"}):
        return None
    number = value.get("value") if isinstance(value, Mapping) else None
    if (not isinstance(value, Mapping) or value.get("type") != "thinking_turns"
            or not isinstance(number, int) or isinstance(number, bool) or number < 1):
        raise BadRequest(f"{where}.keep: should be {{'type': 'thinking_turns', 'value': "
                         "<int ≥ 1>}, {'type': 'all'} or 'all'" + FAKE_WORDING)
    return number


def _assistant_turns(messages: list[Any]) -> list[list[int]]:
    """The indexes of the assistant messages of each assistant turn, oldest first."""
    turns: list[list[int]] = []
    current: list[int] = []
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, Mapping) else None
        if role == "assistant":
            current.append(i)
        elif role == "user" and not _only_tool_results(message) and current:
            turns.append(current)
            current = []
    return [*turns, current] if current else turns


def _only_tool_results(message: Mapping[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and bool(content) and all(
        isinstance(block, Mapping) and block.get("type") == "tool_result" for block in content)


def _has_thinking(message: Any) -> bool:
    content = message.get("content") if isinstance(message, Mapping) else None
    return isinstance(content, list) and any(
        isinstance(block, Mapping) and block.get("type") in _THINKING for block in content)


def _without_thinking(message: Any) -> Any:
    """`message` without its thinking blocks (the same object when it has none, so the
    cache count keeps it)."""
    if not _has_thinking(message):
        return message
    return {**message, "content": [block for block in message["content"]
                                   if not (isinstance(block, Mapping)
                                           and block.get("type") in _THINKING)]}
