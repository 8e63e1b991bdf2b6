"""The API's checks on extended thinking: the `thinking` parameter, and `thinking` blocks
that must come back exactly as they were sent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import FAKE_WORDING, BadRequest

_MODIFIED = (
    "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
    "modified. These blocks must remain as they were in the original response."
)
MIN_BUDGET_TOKENS = 1024
"""The smallest `thinking.budget_tokens` the API accepts."""


def check_thinking_parameter(body: Mapping[str, Any]) -> None:
    """`thinking` must fit `max_tokens` and may not meet a `tool_choice` that forces a tool."""
    thinking = body.get("thinking")
    if thinking is None:
        return
    if not isinstance(thinking, Mapping):
        raise BadRequest(
            "thinking: Input should be a valid dictionary or object to extract fields from"
            + FAKE_WORDING
        )
    kind = thinking.get("type")
    if kind == "enabled":
        budget = thinking.get("budget_tokens")
        if budget is None:
            raise BadRequest("thinking.enabled.budget_tokens: Field required" + FAKE_WORDING)
        if not isinstance(budget, int) or isinstance(budget, bool):
            raise BadRequest(
                "thinking.enabled.budget_tokens: Input should be a valid integer" + FAKE_WORDING
            )
        if budget < MIN_BUDGET_TOKENS:
            # live text: github.com/themaximalist/llm.js/issues/30
            raise BadRequest(
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
            )
        if budget >= body["max_tokens"]:
            # live text: github.com/router-for-me/CLIProxyAPI/issues/413
            raise BadRequest(
                "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
                "documentation at https://docs.claude.com/en/docs/build-with-claude/"
                "extended-thinking#max-tokens-and-context-window-size"
            )
    choice = body.get("tool_choice")
    forced = isinstance(choice, Mapping) and choice.get("type") in ("any", "tool")
    if kind in ("enabled", "adaptive") and forced:
        # live text: github.com/mastra-ai/mastra/issues/7507
        raise BadRequest("Thinking may not be enabled when tool_choice forces tool use.")


def check_thinking_blocks(messages: list[Any], memory: Any) -> None:
    """The latest assistant message must carry its `thinking` blocks exactly as sent.

    `memory` is the server's memory of what it sent (`ServerMemory`).
    """
    index = next(
        (i for i in range(len(messages) - 1, -1, -1) if _role(messages[i]) == "assistant"),
        None,
    )
    if index is None:
        return
    blocks = _content_blocks(messages[index])
    found = [
        (position, block)
        for position, block in enumerate(blocks)
        if block.get("type") in ("thinking", "redacted_thinking")
    ]
    for position, block in found:
        if block.get("type") != "thinking":
            continue
        if memory.thinking.get(str(block.get("signature"))) != block.get("thinking"):
            raise BadRequest(f"messages.{index}.content.{position}: {_MODIFIED}")
    _check_all_sent_back(index, blocks, found, memory)


def _check_all_sent_back(
    index: int, blocks: list[dict[str, Any]], found: list[tuple[int, dict[str, Any]]], memory: Any
) -> None:
    """The thinking blocks of the reply that made a call come back, all and in order."""
    expected: list[tuple[int, str, str]] | None = None
    for block in blocks:
        if block.get("type") == "tool_use" and block.get("id") in memory.thinking_by_tool_use:
            expected = memory.thinking_by_tool_use[str(block["id"])]
            break
    if expected is None:
        return
    actual = [
        (position, str(block.get("signature")), block.get("thinking"))
        for position, block in found
        if block.get("type") == "thinking"
    ]
    if not found and blocks:
        # Live text up to "thinking block" as stored in Anthropic's cookbook output
        # (cited in the project's issue); the tail is the fake's wording.
        raise BadRequest(
            f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, "
            f"but found `{blocks[0].get('type')}`. When `thinking` is enabled, a final "
            "`assistant` message must start with a thinking block. Send the assistant "
            "content back unchanged, thinking blocks included. (looplab's fake: exact live "
            "wording after 'thinking block' not verified)"
        )
    if actual != expected:
        mismatch = next(
            i
            for i in range(max(len(actual), len(expected)))
            if i >= len(actual) or i >= len(expected) or actual[i] != expected[i]
        )
        # name the place where the original block belongs (or the extra block)
        position = expected[mismatch][0] if mismatch < len(expected) else actual[mismatch][0]
        raise BadRequest(f"messages.{index}.content.{position}: {_MODIFIED}")


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, Mapping) else None


def _content_blocks(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, list):
        return [block if isinstance(block, dict) else {} for block in content]
    return []
