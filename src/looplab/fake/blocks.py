"""Checks over every content block of a request: prompt-cache breakpoints and images."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .errors import BadRequest

MAX_CACHE_BREAKPOINTS = 4
"""How many blocks may carry `cache_control` in one request."""

# The media types of the live 400 text (github.com/anthropics/claude-code/issues/5955).
IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")


def check_blocks(body: Mapping[str, Any]) -> None:
    """At most four `cache_control` blocks; base64 images only in the supported types."""
    blocks = [block for _, block in _all_blocks(body) if isinstance(block, Mapping)]
    marked = sum(1 for block in blocks if block.get("cache_control"))
    if marked > MAX_CACHE_BREAKPOINTS:
        # live text: github.com/tghamm/Anthropic.SDK/issues/50
        raise BadRequest(
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {marked}."
        )
    for where, block in _all_blocks(body):
        if not isinstance(block, Mapping) or block.get("type") != "image":
            continue
        source = block.get("source")
        if not isinstance(source, Mapping) or source.get("type") != "base64":
            continue
        if source.get("media_type") not in IMAGE_MEDIA_TYPES:
            allowed = ", ".join(f"'{kind}'" for kind in IMAGE_MEDIA_TYPES[:-1])
            raise BadRequest(
                f"{where}.image.source.base64.media_type: Input should be {allowed} or "
                f"'{IMAGE_MEDIA_TYPES[-1]}'"
            )


def _all_blocks(body: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """(path, block) of every tool, system block, message block and nested result block."""
    tools = body.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        yield f"tools.{i}", tool
    system = body.get("system")
    for i, block in enumerate(system if isinstance(system, list) else []):
        yield f"system.{i}", block
    messages = body.get("messages")
    for n, message in enumerate(messages if isinstance(messages, list) else []):
        content = message.get("content") if isinstance(message, Mapping) else None
        for m, block in enumerate(content if isinstance(content, list) else []):
            yield f"messages.{n}.content.{m}", block
            inner = block.get("content") if isinstance(block, Mapping) else None
            if isinstance(inner, list) and block.get("type") == "tool_result":
                for k, part in enumerate(inner):
                    yield f"messages.{n}.content.{m}.tool_result.content.{k}", part
