"""A scripted reply turned into the API's `Message`: checked against the request, cut by
`max_tokens` and `stop_sequences`, given ids and signatures, and counted in `usage`."""

from __future__ import annotations

from typing import Any

from .conform import check_reply
from .models import FakeModel, ScriptError
from .shape import PARTIAL_JSON, shape
from .steps import Reply

# Always numbers in the live `usage` (SDK `types/usage.py`); the other counts are Optional.
_REQUIRED_COUNTS = ("input_tokens", "output_tokens")


def build_message(model: FakeModel, step: Reply, body: dict[str, Any]) -> dict[str, Any]:
    """The JSON body of a 200 answer to request `body` (the newest in `model.requests`)."""
    number = len(model.requests)
    check_reply(step, body, model.step_label(number), number)
    scripted = _scripted_usage(step, number)
    shaped = shape(step.content, step.resolved_stop_reason, step.stop_sequence, body)
    content = [dict(block) for block in shaped.content]
    eager = _eager_tools(body)
    raw = {index: str(block.pop(PARTIAL_JSON)) for index, block in enumerate(content)
           if PARTIAL_JSON in block}
    raw = {index: text for index, text in raw.items() if content[index].get("name") in eager}
    _fill_ids(model, content)
    fresh, written, read = model.memory.cache.account(body)
    usage: dict[str, Any] = {
        "input_tokens": fresh,
        "output_tokens": shaped.output_tokens,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": read,
        # The live shape (SDK `types/usage.py`): the fake writes every cache entry with
        # the default 5-minute TTL; a scripted server tool call counts as one request.
        "cache_creation": {"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0},
        "server_tool_use": _server_tool_use(content),
        "service_tier": "standard",
        **scripted,
    }
    message = {
        "id": model.memory.ids.next("msg"),
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": shaped.stop_reason,
        "stop_sequence": shaped.stop_sequence,
        "stop_details": dict(step.stop_details) if step.stop_details else None,
        "usage": usage,
    }
    if raw:
        message[RAW_INPUTS] = raw
    return message


RAW_INPUTS = "__raw_inputs"
"""Key of `{block index: input text as written}` for the cut calls of tools defined with
`eager_input_streaming: true`; `sse.py` streams those raw, and the key is never sent."""


def _eager_tools(body: dict[str, Any]) -> set[str]:
    tools = body.get("tools")
    return {str(tool.get("name")) for tool in tools if isinstance(tool, dict)
            and tool.get("eager_input_streaming") is True} if isinstance(tools, list) else set()


def _server_tool_use(content: list[dict[str, Any]]) -> dict[str, int]:
    """`usage.server_tool_use`: how many web searches and fetches the reply made."""
    names = [block.get("name") for block in content if block.get("type") == "server_tool_use"]
    return {"web_search_requests": names.count("web_search"),
            "web_fetch_requests": names.count("web_fetch")}


def _fill_ids(model: FakeModel, content: list[dict[str, Any]]) -> None:
    """Give calls their ids and thinking blocks their signatures, and remember both."""
    memory = model.memory
    thinking: list[tuple[int, str, str]] = []
    server_call = ""
    for position, block in enumerate(content):
        kind = block.get("type")
        if kind == "tool_use":
            block.setdefault("id", memory.ids.next("toolu"))
        elif kind == "server_tool_use":
            block.setdefault("id", memory.ids.next("srvtoolu"))
            server_call = block["id"]
        elif str(kind).endswith("_tool_result") and "tool_use_id" not in block and server_call:
            # a server tool's result answers the server call just before it
            block["tool_use_id"] = server_call
        elif kind == "thinking":
            text = str(block.get("thinking", ""))
            block.setdefault("signature", memory.ids.signature(text))
            memory.thinking[block["signature"]] = text
            thinking.append((position, block["signature"], text))
    for block in content:
        if block.get("type") == "tool_use" and thinking:
            memory.thinking_by_tool_use[block["id"]] = thinking


def _scripted_usage(step: Reply, number: int) -> dict[str, Any]:
    """A script's own `usage` numbers, refused unless they are whole numbers ≥ 0 (the
    optional counts, such as the cache fields, may also be None, as the live API sends)."""
    for key, value in (step.usage or {}).items():
        if value is None and key not in _REQUIRED_COUNTS:
            continue
        if key.endswith("_tokens") and (
            isinstance(value, bool) or not isinstance(value, int) or value < 0
        ):
            raise ScriptError(
                f"the script's reply to request {number} sets usage {key}={value!r}; token "
                "counts must be whole numbers ≥ 0. Fix that step's `usage`."
            )
    return dict(step.usage or {})
