"""Server-side compaction (`context_management.edits: [{"type": "compact_20260112"}]`,
beta `compact-2026-01-12`), as the fake plays it.

From platform.claude.com/docs/en/build-with-claude/compaction and the SDK's types
(`BetaCompact20260112EditParam`, `BetaCompactionBlock`, `BetaIterationsUsage`):

- Once the prompt's input tokens exceed the `trigger` (default 150,000; at least 50,000),
  the API summarises the conversation, puts a `compaction` block first in the reply, and
  the model answers from the summary. With `pause_after_compaction: true` the reply is
  the block alone, with `stop_reason: "compaction"`; the client appends it and sends
  the turn again (the SDK's runner "resumes").
- A `compaction` block sent back in an assistant message replaces everything before it:
  the prompt the model sees starts at that block. A block whose `content` is null is a
  failed compaction, and the server treats it as a no-op.
- `usage.iterations` lists a `compaction` entry (its own tokens, "not included in the
  top-level usage fields") before the `message` entry of the answer.

The summary is the fake's own text (no model writes it offline): it names how many
messages and tokens it replaced and quotes the latest user text, so a script or a
lesson can see what the model would continue from. `instructions` is refused, since
the fake's summary could not follow them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import FAKE_WORDING, BadRequest
from .usage import estimate_tokens, text_tokens

COMPACT = "compact_20260112"
DEFAULT_TRIGGER = 150_000
MIN_TRIGGER = 50_000


@dataclass(frozen=True)
class Compaction:
    """A compaction the API made for one request."""

    block: dict[str, Any]
    pause: bool
    usage: dict[str, Any]
    """The `compaction` entry of `usage.iterations`."""


def after_last_compaction(body: dict[str, Any]) -> dict[str, Any]:
    """The prompt the model sees: from the last `compaction` block (with a summary) on."""
    messages = body["messages"]
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        content = message.get("content") if isinstance(message, Mapping) else None
        if message.get("role") != "assistant" or not isinstance(content, list):
            continue
        for position in range(len(content) - 1, -1, -1):
            block = content[position]
            if (isinstance(block, Mapping) and block.get("type") == "compaction"
                    and block.get("content") is not None):
                kept = {**message, "content": content[position:]}
                return {**body, "messages": [kept, *messages[index + 1:]]}
    return body


def compact(body: dict[str, Any], edit: Mapping[str, Any],
            where: str) -> tuple[dict[str, Any], Compaction | None]:
    """Compact `body` if it passes the edit's trigger: `(prompt the model sees, what
    was done or None)`."""
    trigger = edit.get("trigger")
    limit = DEFAULT_TRIGGER
    if trigger is not None:
        value = trigger.get("value") if isinstance(trigger, Mapping) else None
        if (not isinstance(trigger, Mapping) or trigger.get("type") != "input_tokens"
                or not isinstance(value, int) or isinstance(value, bool)):
            raise BadRequest(f"{where}.trigger: should be {{'type': 'input_tokens', 'value': "
                             f"<int>}}{FAKE_WORDING}")
        if value < MIN_TRIGGER:
            raise BadRequest(f"{where}.trigger.value: Input should be greater than or equal "
                             f"to {MIN_TRIGGER}{FAKE_WORDING}")
        limit = value
    pause = edit.get("pause_after_compaction", False)
    if not isinstance(pause, bool):
        raise BadRequest(f"{where}.pause_after_compaction: Input should be a valid boolean"
                         + FAKE_WORDING)
    tokens = estimate_tokens(body)
    if tokens <= limit:
        return body, None
    summary = _summary(body["messages"], tokens)
    block = {"type": "compaction", "content": summary, "encrypted_content": None}
    usage = {"type": "compaction", "input_tokens": tokens, "output_tokens": text_tokens(summary),
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    seen = {**body, "messages": [{"role": "assistant", "content": [block]}]}
    return seen, Compaction(block, pause, usage)


def _summary(messages: list[Any], tokens: int) -> str:
    latest = ""
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                latest = content
            elif isinstance(content, list):
                latest = " ".join(str(block.get("text")) for block in content
                                  if isinstance(block, Mapping) and block.get("type") == "text")
            if latest:
                break
    return (f"[Summary of {len(messages)} earlier messages, about {tokens:,} input tokens. "
            "looplab's fake writes this placeholder; live, the model writes the summary.] "
            f"Latest request: {latest or '(a tool result)'}")
