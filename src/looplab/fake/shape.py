"""What `max_tokens` and `stop_sequences` do to a reply, as the live API applies them.

The model writes a reply's blocks in order, and every block spends output tokens (the
fake's estimate, see `usage.py`): a `thinking` block its text, a `text` block its text, a
tool call its name and then its input as the JSON the API streams. The reply is cut
where it first reaches `max_tokens` or first writes one of the request's
`stop_sequences` (the sequence itself is not returned), and `stop_reason`,
`stop_sequence` and `output_tokens` say what happened. A tool input cut part-way keeps
the keys and values written so far, read like the SDK reads streamed JSON.

A reply the script already ends with `max_tokens` (`truncate(...)`) counts `max_tokens`
output tokens, as when the live limit is hit; a scripted `stop_sequence` reply without
the sequence in its text reports the request's first stop sequence.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jiter import from_json

from .usage import block_tokens, fit_text, output_tokens, text_tokens

Block = dict[str, Any]
PARTIAL_JSON = "__partial_json"
"""Key of a cut tool call's raw input text; taken off before the reply is sent."""


@dataclass(frozen=True)
class Shaped:
    """A reply after `max_tokens` and `stop_sequences`."""

    content: list[Block]
    stop_reason: str
    stop_sequence: str | None
    output_tokens: int


def shape(
    content: Sequence[Block],
    stop_reason: str,
    stop_sequence: str | None,
    body: Mapping[str, Any],
) -> Shaped:
    """Cut `content` where the model would have stopped for the request `body`."""
    budget = int(body["max_tokens"])
    sequences = [s for s in body.get("stop_sequences") or [] if isinstance(s, str) and s]
    kept: list[Block] = []
    spent = 0
    for block in content:
        written = _written(block)
        if written is None:  # not generated text (e.g. redacted thinking): passed through
            kept.append(block)
            spent += block_tokens(block)
            continue
        head, text = written
        hit = _first_stop(text, sequences)
        candidate = text if hit is None else text[: hit[0]]
        room = budget - spent - text_tokens(head)
        if room < 0:
            return Shaped(kept, "max_tokens", None, budget)
        cut = fit_text(candidate, room)
        if len(cut) < len(candidate):
            kept.extend(_rebuilt(block, cut))
            return Shaped(kept, "max_tokens", None, budget)
        spent += text_tokens(head) + text_tokens(candidate)
        if hit is not None:
            kept.extend(_rebuilt(block, candidate))
            return Shaped(kept, "stop_sequence", hit[1], max(1, spent))
        kept.append(block)
    if stop_reason == "max_tokens":
        return Shaped(kept, stop_reason, None, budget)
    if stop_reason == "stop_sequence" and stop_sequence is None:
        stop_sequence = sequences[0] if sequences else None
    return Shaped(kept, stop_reason, stop_sequence, output_tokens(kept))


def _written(block: Block) -> tuple[str, str] | None:
    """(a part written before the text, the text) of a generated block."""
    kind = block.get("type")
    if kind == "text":
        return "", str(block.get("text", ""))
    if kind == "thinking":
        return "", str(block.get("thinking", ""))
    if kind in ("tool_use", "server_tool_use"):
        stream = json.dumps(block.get("input"), ensure_ascii=False, separators=(",", ":"))
        return str(block.get("name", "")), stream
    return None


def _first_stop(text: str, sequences: list[str]) -> tuple[int, str] | None:
    """Where the first stop sequence starts in `text`, and which one it is."""
    hits = [(text.find(s), s) for s in sequences if s in text]
    return min(hits, key=lambda hit: hit[0]) if hits else None


def _rebuilt(block: Block, text: str) -> list[Block]:
    """`block` holding only `text`; an empty text or thinking block is left out (the API
    refuses empty text blocks when they are sent back)."""
    kind = block.get("type")
    if kind == "text":
        return [{**block, "text": text}] if text else []
    if kind == "thinking":
        return [{**block, "thinking": text}] if text else []
    partial = from_json(text.encode(), partial_mode="trailing-strings") if text else {}
    # PARTIAL_JSON: the input as far as it was written, for a stream that sends it raw
    return [{**block, "input": partial if isinstance(partial, dict) else {}, PARTIAL_JSON: text}]
