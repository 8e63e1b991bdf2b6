"""Checks over every content block of a request (parsed JSON: objects are dicts, and are
tested as such, which is faster than `Mapping`): prompt-cache breakpoints, text blocks'
fields, blank system text, images (their media type and their base64), and the blocks
inside a `tool_result`'s content."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator, Mapping
from typing import Any, get_args, get_type_hints

from anthropic.types import TextBlockParam
from anthropic.types.tool_result_block_param import Content

from ..history.rules import RULES
from .errors import FAKE_WORDING, BadRequest

MAX_CACHE_BREAKPOINTS = 4
"""How many blocks may carry `cache_control` in one request."""

# The media types of the live 400 text (github.com/anthropics/claude-code/issues/5955).
IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")

TEXT_FIELDS = frozenset(TextBlockParam.__annotations__)
"""The fields a text block may have, read from the SDK's type."""

RESULT_BLOCK_TYPES = frozenset(get_args(get_type_hints(t)["type"])[0] for t in get_args(Content))
"""The block types a `tool_result`'s content may hold, read from the SDK's union."""
# The history rules' texts, so a block inside a tool_result is refused as one in a message.
_TEXT = {rule.id: rule.text for rule in RULES}


def check_blocks(body: Mapping[str, Any]) -> None:
    """At most four `cache_control` blocks; base64 images only in the supported types;
    in a `tool_result`'s content, only blocks of the SDK's types, and no blank text."""
    blocks = list(_all_blocks(body))
    marked = sum(1 for _, block in blocks if isinstance(block, dict)
                 and block.get("cache_control"))
    if marked > MAX_CACHE_BREAKPOINTS:
        # live text: github.com/tghamm/Anthropic.SDK/issues/50
        raise BadRequest(
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {marked}."
        )
    for place, block in blocks:
        if len(place) == 3:  # inside a tool_result
            _check_result_part(_where(place), block)
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and place[0] != "tools":
            _check_text(place, block)
        if block.get("type") != "image":
            continue
        where = _where(place)
        source = block.get("source")
        if not isinstance(source, Mapping) or source.get("type") != "base64":
            continue
        if source.get("media_type") not in IMAGE_MEDIA_TYPES:
            allowed = ", ".join(f"'{kind}'" for kind in IMAGE_MEDIA_TYPES[:-1])
            raise BadRequest(
                f"{where}.image.source.base64.media_type: Input should be {allowed} or "
                f"'{IMAGE_MEDIA_TYPES[-1]}'"
            )
        _check_base64(where, source.get("data"))


def _check_text(place: Place, block: Mapping[str, Any]) -> None:
    """A text block has only the SDK's fields (pydantic's text for an extra one), and a
    system text block is not blank (a message's is checked by the history rules)."""
    where = _where(place)
    for key in block:
        if key not in TEXT_FIELDS:
            raise BadRequest(f"{where}.text.{key}: Extra inputs are not permitted")
    text = block.get("text")
    if place[0] == "system" and isinstance(text, str) and not text.strip():
        kind = "contain non-whitespace text" if text else "be non-empty"
        raise BadRequest(f"system: text content blocks must {kind}{FAKE_WORDING}")


def _check_base64(where: str, data: Any) -> None:
    """An image's `data` is base64 (the standard alphabet, padded), and not empty."""
    try:
        ok = isinstance(data, str) and bool(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        ok = False
    if not ok:
        raise BadRequest(f"{where}.image.source.base64.data: the image data is not valid "
                         f"base64{FAKE_WORDING}")


def _check_result_part(where: str, part: Any) -> None:
    """A block inside a `tool_result`'s content, checked by the rules (and with the texts)
    that `looplab.history.rules` applies to a message's blocks; `rule_texts.py` says which
    texts are the API's own. That the API refuses blank text here too is an assumption:
    its texts speak of all `messages`, and users meet them when a tool returns empty text
    (github.com/anthropics/claude-code/issues/23440)."""
    if not isinstance(part, Mapping):
        raise BadRequest(_TEXT["malformed"].format(
            at=where, problem="Input should be a valid dictionary"))
    kind = part.get("type")
    if not isinstance(kind, str):
        raise BadRequest(_TEXT["malformed"].format(at=f"{where}.type", problem="Field required"))
    if kind not in RESULT_BLOCK_TYPES:
        raise BadRequest(_TEXT["block_type_unknown"].format(at=where, kind=kind))
    if kind != "text":
        return
    text = part.get("text")
    if not isinstance(text, str):
        problem = "Input should be a valid string" if "text" in part else "Field required"
        raise BadRequest(_TEXT["malformed"].format(at=f"{where}.text.text", problem=problem))
    if not text.strip():
        raise BadRequest(_TEXT["text_whitespace" if text else "text_empty"])


Place = tuple[Any, ...]
"""Where a block stands: ("tools", i), ("system", i), (n, m) in the messages, or (n, m, k)
inside a `tool_result`'s content; made into a path (`_where`) only when it is shown."""


def _where(place: Place) -> str:
    if isinstance(place[0], str):
        return f"{place[0]}.{place[1]}"
    n, m, *inner = place
    return f"messages.{n}.content.{m}" + (f".tool_result.content.{inner[0]}" if inner else "")


def _all_blocks(body: Mapping[str, Any]) -> Iterator[tuple[Place, Any]]:
    """(place, block) of every tool, system block, message block and nested result block."""
    tools = body.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        yield ("tools", i), tool
    system = body.get("system")
    for i, block in enumerate(system if isinstance(system, list) else []):
        yield ("system", i), block
    messages = body.get("messages")
    for n, message in enumerate(messages if isinstance(messages, list) else []):
        content = message.get("content") if isinstance(message, dict) else None
        for m, block in enumerate(content if isinstance(content, list) else []):
            yield (n, m), block
            inner = block.get("content") if isinstance(block, dict) else None
            if isinstance(inner, list) and block.get("type") == "tool_result":
                for k, part in enumerate(inner):
                    yield (n, m, k), part
