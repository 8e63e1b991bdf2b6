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

On demand (`compaction: {"type": "summarize"}`, beta `compact-2026-09-04`; the SDK
runner's `compact_before_next_turn()`): "Compact the whole conversation and return a
signed `compaction` block, alone ... There is no trigger and no pause flag: sending the
parameter compacts, and nothing is sampled after the block" (`BetaCompactionConfigParam`).
The reply is the block, `stop_reason: "compaction"`, and no script step is used. The
API refuses the parameters that only shape a reply next to it (the SDK runner drops
`context_management`, `stop_sequences`, a forcing `tool_choice` and `output_config.format`
before sending it); the fake does too, in its own words.

The summary is the fake's own text (no model writes it offline): it names how many
messages and tokens it replaced and quotes the latest user text, so a script or a
lesson can see what the model would continue from. `instructions` is refused (in the
edit and in `compaction`), since the fake's summary could not follow them.
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


def compact_now(body: dict[str, Any]) -> tuple[dict[str, Any], Compaction]:
    """On-demand compaction: the whole conversation, whatever its size, paused."""
    config = body["compaction"]
    if not isinstance(config, Mapping) or config.get("type") != "summarize":
        raise BadRequest("compaction.type: Input should be 'summarize'" + FAKE_WORDING)
    choice = body.get("tool_choice")
    output = body.get("output_config")
    clashes = [name for name, clash in (
        ("context_management", body.get("context_management") is not None),
        ("stop_sequences", bool(body.get("stop_sequences"))),
        ("tool_choice", isinstance(choice, Mapping) and choice.get("type") in ("any", "tool")),
        ("output_config.format", isinstance(output, Mapping)
         and output.get("format") is not None)) if clash]
    if clashes:
        raise BadRequest(f"compaction: a compaction request returns no reply, so it cannot "
                         f"carry {', '.join(clashes)}{FAKE_WORDING}")
    seen, done = compact(body, {"trigger": {"type": "input_tokens", "value": 0}},
                         "compaction", minimum=0)
    assert done is not None
    return seen, Compaction(done.block, True, done.usage)


def compact(body: dict[str, Any], edit: Mapping[str, Any], where: str,
            minimum: int = MIN_TRIGGER) -> tuple[dict[str, Any], Compaction | None]:
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
        if value < minimum:
            raise BadRequest(f"{where}.trigger.value: Input should be greater than or equal "
                             f"to {minimum}{FAKE_WORDING}")
        limit = value
    pause = edit.get("pause_after_compaction", False)
    if not isinstance(pause, bool):
        raise BadRequest(f"{where}.pause_after_compaction: Input should be a valid boolean"
                         + FAKE_WORDING)
    tokens = estimate_tokens(body)
    if tokens <= limit and minimum:
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
