"""A finished reply replayed as the API's server-sent events, for `client.messages.stream()`."""

from __future__ import annotations

import json
from typing import Any

# Text is sent in pieces of this many characters, so a stream has several deltas.
_CHUNK = 24


def _event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _pieces(text: str) -> list[str]:
    return [text[i : i + _CHUNK] for i in range(0, len(text), _CHUNK)] or [""]


def _start_and_deltas(block: dict[str, Any], raw: str | None = None,
                      ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    kind = block.get("type")
    if kind == "tool_use" and raw is not None:
        # Fine-grained tool streaming (`eager_input_streaming`): the input as the model
        # wrote it, unbuffered, so a call cut by max_tokens streams JSON that does not
        # parse (platform.claude.com/docs/en/agents-and-tools/tool-use/
        # fine-grained-tool-streaming: "may be invalid or partial JSON")
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(raw)]
        return {**block, "input": {}}, deltas
    if kind == "text":
        deltas = [{"type": "text_delta", "text": piece} for piece in _pieces(block["text"])]
        return {**block, "text": ""}, deltas
    if kind in ("tool_use", "server_tool_use"):
        partial = json.dumps(block.get("input", {}), ensure_ascii=False)
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(partial)]
        return {**block, "input": {}}, deltas
    if kind == "thinking":
        deltas = [{"type": "thinking_delta", "thinking": p} for p in _pieces(block["thinking"])]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
        return {**block, "thinking": "", "signature": ""}, deltas
    if kind == "compaction":
        # beta `BetaCompactionContentBlockDelta`: the summary arrives in one delta
        delta = {"type": "compaction_delta", "content": block.get("content"),
                 "encrypted_content": block.get("encrypted_content")}
        return {**block, "content": None}, [delta]
    return block, []


def sse_events(message: dict[str, Any], raw: dict[int, str] | None = None) -> list[str]:
    """The events of `message`, one text each: message_start, one start/delta…/stop per block,
    message_delta (stop_reason and cumulative usage), message_stop. `raw` holds the
    input text, as written, of the cut calls of eager-streaming tools."""
    usage = message["usage"]
    start = {
        **{key: value for key, value in message.items() if key != "context_management"},
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "stop_details": None,
        "usage": {**usage, "output_tokens": 1},
    }
    events = [_event("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        first, deltas = _start_and_deltas(block, (raw or {}).get(index))
        events.append(
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": first},
            )
        )
        events.extend(
            _event(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
            for delta in deltas
        )
        events.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
    final = {
        "stop_reason": message["stop_reason"],
        "stop_sequence": message["stop_sequence"],
        "stop_details": message["stop_details"],
    }
    closing: dict[str, Any] = {"type": "message_delta", "delta": final, "usage": usage}
    if message.get("context_management") is not None:
        # beta `BetaRawMessageDeltaEvent.context_management`: what context editing cleared
        closing["context_management"] = message["context_management"]
    events.append(_event("message_delta", closing))
    events.append(_event("message_stop", {"type": "message_stop"}))
    return events
