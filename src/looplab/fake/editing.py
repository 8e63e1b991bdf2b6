"""Context editing (`context_management`, beta `context-management-2025-06-27`): the API
edits the prompt before the model sees it, and says in the reply what it cleared.

What the fake plays, from platform.claude.com/docs/en/build-with-claude/context-editing
and the SDK's `BetaClearToolUses20250919EditParam` / `BetaContextManagementResponse`:

- `clear_tool_uses_20250919` activates once the prompt exceeds `trigger` (default
  `{"type": "input_tokens", "value": 100000}`; `{"type": "tool_uses", ...}` counts the
  tool uses in the history). It then clears the oldest tool results in order, keeping
  the newest `keep` tool uses (default `{"type": "tool_uses", "value": 3}`), never those
  of a tool named in `exclude_tools`, and only if it frees at least `clear_at_least`
  input tokens. A cleared `tool_result` keeps its `tool_use_id`; its content becomes a
  placeholder (the fake's own text: the live placeholder is not documented).
- The client keeps its full history ("Context editing is applied server-side before the
  prompt reaches Claude"): `model.requests` records what was sent; the model's step and
  the reply's `usage` see the edited prompt.
- The reply carries `context_management: {"applied_edits": [{"type":
  "clear_tool_uses_20250919", "cleared_tool_uses": n, "cleared_input_tokens": t}]}`
  (an empty list when nothing was cleared); a stream carries it on `message_delta`.
- `count_tokens` counts the edited prompt and adds
  `context_management: {"original_input_tokens": ...}`.

`clear_thinking_20251015` is played in `clear_thinking.py`, `compact_20260112` in
`compaction.py`; `clear_tool_inputs` is refused (see `inventory.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .clear_thinking import CLEAR_THINKING, check_order, clear_thinking
from .compaction import COMPACT, Compaction, after_last_compaction, compact, compact_now
from .errors import FAKE_WORDING, BadRequest
from .models import FakeModel
from .usage import estimate_tokens

CLEAR_TOOL_USES = "clear_tool_uses_20250919"
PLACEHOLDER = "[tool result cleared by context editing]"
"""What a cleared tool result reads (the fake's own wording)."""
DEFAULT_TRIGGER = {"type": "input_tokens", "value": 100_000}
DEFAULT_KEEP = {"type": "tool_uses", "value": 3}


@dataclass(frozen=True)
class Edited:
    """What the API did to a request's prompt before the model saw it."""

    body: dict[str, Any]
    """The prompt the model sees (and `usage` counts)."""
    management: dict[str, Any] | None
    """The reply's `context_management`, or None when the request set none."""
    compaction: Compaction | None = None


def edit_context(body: dict[str, Any]) -> Edited:
    """Apply a `compaction` block sent back, then on-demand compaction or the request's
    edits in order."""
    body = after_last_compaction(body)
    if body.get("compaction") is not None:
        seen, on_demand = compact_now(body)
        return Edited(seen, None, on_demand)
    config = body.get("context_management")
    if config is None:
        return Edited(body, None)
    if not isinstance(config, Mapping) or not isinstance(config.get("edits", []), list):
        raise BadRequest("context_management.edits: Input should be a valid list" + FAKE_WORDING)
    applied: list[dict[str, Any]] = []
    compaction: Compaction | None = None
    check_order(config.get("edits", []))
    for i, edit in enumerate(config.get("edits", [])):
        where = f"context_management.edits.{i}"
        kind = edit.get("type") if isinstance(edit, Mapping) else None
        if kind in (CLEAR_TOOL_USES, CLEAR_THINKING):
            clear = _clear_tool_uses if kind == CLEAR_TOOL_USES else clear_thinking
            body, result = clear(body, edit, where)
            if result is not None:
                applied.append(result)
        elif kind == COMPACT:
            body, compaction = compact(body, edit, where)
        # inventory.check_parameters has refused every other edit
    return Edited(body, {"applied_edits": applied}, compaction)


def _threshold(edit: Mapping[str, Any], key: str, default: Mapping[str, Any] | None,
               kinds: tuple[str, ...], where: str) -> tuple[str, int] | None:
    value = edit.get(key)
    if value is None:
        value = default
    if value is None:
        return None
    if (not isinstance(value, Mapping) or value.get("type") not in kinds
            or not isinstance(value.get("value"), int) or isinstance(value.get("value"), bool)
            or value["value"] < 0):
        wanted = " or ".join(f"{{'type': '{kind}', 'value': <int ≥ 0>}}" for kind in kinds)
        raise BadRequest(f"{where}.{key}: should be {wanted}{FAKE_WORDING}")
    return str(value["type"]), int(value["value"])


def _tool_uses(body: Mapping[str, Any]) -> list[tuple[str, str]]:
    """`(tool_use id, tool name)` of every tool_use in the history, oldest first."""
    uses: list[tuple[str, str]] = []
    for message in body["messages"]:
        content = message.get("content") if isinstance(message, Mapping) else None
        if message.get("role") != "assistant" or not isinstance(content, list):
            continue
        uses.extend((str(block.get("id")), str(block.get("name"))) for block in content
                    if isinstance(block, Mapping) and block.get("type") == "tool_use")
    return uses


def _clear_tool_uses(body: dict[str, Any], edit: Mapping[str, Any],
                     where: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    trigger = _threshold(edit, "trigger", DEFAULT_TRIGGER, ("input_tokens", "tool_uses"), where)
    keep = _threshold(edit, "keep", DEFAULT_KEEP, ("tool_uses",), where)
    least = _threshold(edit, "clear_at_least", None, ("input_tokens",), where)
    excluded = edit.get("exclude_tools") or []
    if not isinstance(excluded, list) or not all(isinstance(name, str) for name in excluded):
        raise BadRequest(f"{where}.exclude_tools: Input should be a valid list of strings"
                         + FAKE_WORDING)
    assert trigger is not None and keep is not None
    uses = _tool_uses(body)
    before = estimate_tokens(body)
    size = before if trigger[0] == "input_tokens" else len(uses)
    if size <= trigger[1]:
        return body, None
    clearable = [use_id for use_id, name in uses if name not in excluded]
    cleared = set(clearable[:max(0, len(clearable) - keep[1])])
    if not cleared:
        return body, None
    edited = {**body, "messages": [_cleared(message, cleared) for message in body["messages"]]}
    freed = before - estimate_tokens(edited)
    if least is not None and freed < least[1]:
        return body, None
    return edited, {"type": CLEAR_TOOL_USES, "cleared_tool_uses": len(cleared),
                    "cleared_input_tokens": freed}


def _cleared(message: Any, cleared: set[str]) -> Any:
    """`message` with the results of the `cleared` tool uses replaced (a new object only
    when something changed, so the cache count keeps the others)."""
    content = message.get("content") if isinstance(message, Mapping) else None
    if not isinstance(content, list) or not any(
            _is_cleared(block, cleared) for block in content):
        return message
    return {**message, "content": [
        {**block, "content": PLACEHOLDER} if _is_cleared(block, cleared) else block
        for block in content]}


def _is_cleared(block: Any, cleared: set[str]) -> bool:
    return (isinstance(block, Mapping) and block.get("type") == "tool_result"
            and block.get("tool_use_id") in cleared)


def with_edits(message: dict[str, Any], edited: Edited) -> dict[str, Any]:
    """A reply with what the edits did: `context_management`, and a compaction's block
    first in `content` and its entry in `usage.iterations`."""
    if edited.management is not None:
        message["context_management"] = edited.management
    if edited.compaction is not None:
        message["content"] = [dict(edited.compaction.block), *message["content"]]
        usage = message["usage"]
        answer = {"type": "message", **{key: usage[key] for key in _ITERATION_COUNTS}}
        usage["iterations"] = [dict(edited.compaction.usage), answer]
    return message


_ITERATION_COUNTS = ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                     "cache_read_input_tokens")


def paused_message(model: FakeModel, body: dict[str, Any], edited: Edited) -> dict[str, Any]:
    """The reply of a compaction with `pause_after_compaction`: the block alone, stop
    reason `compaction`, no script step used; the top-level usage counts no model turn."""
    assert edited.compaction is not None
    usage = {key: 0 for key in _ITERATION_COUNTS}
    message = {
        "id": model.memory.ids.next("msg"), "type": "message", "role": "assistant",
        "model": body["model"], "content": [], "stop_reason": "compaction",
        "stop_sequence": None, "stop_details": None,
        "usage": {**usage, "service_tier": "standard",
                  "iterations": [dict(edited.compaction.usage)]},
    }
    message = with_edits(message, Edited(edited.body, edited.management, None))
    message["content"] = [dict(edited.compaction.block)]
    return message
