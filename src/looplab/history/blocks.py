"""Messages and content blocks as plain dicts, whatever form they were given in.

A history may hold plain dicts in the API's shape, SDK objects (`response.content`'s
blocks are pydantic models) or a string as a message's whole content. Everything that
reads a history reads it through these two functions.
"""

from __future__ import annotations

from typing import Any


def plain(obj: Any) -> Any:
    """An SDK object (a pydantic model) as a plain dict; anything else as it is."""
    if isinstance(obj, (dict, list, str)):  # the common case, kept fast
        return obj
    for name in ("to_dict", "model_dump"):
        method = getattr(obj, name, None)
        if callable(method):
            try:
                return method()
            except Exception:  # not an SDK model after all: judge the object as it is
                return obj
    return obj


def content_blocks(message: Any) -> list[Any]:
    """A message's content as a list of blocks (plain dicts where they can be): a string
    content is one text block, an empty string none; content that is not a list is none."""
    content = plain(message).get("content") if isinstance(plain(message), dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, (list, tuple)):
        return []
    return [plain(b) for b in content]


def text_of(content: Any) -> str:
    """A message's or a `tool_result`'s `content` as text: a string as it is, text blocks
    joined by newlines, any other block as its type in brackets (`[image]`), None as ""."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, (list, tuple)) else [content]:
        b = plain(block)
        if isinstance(b, dict) and b.get("type") == "text":
            parts.append(str(b.get("text", "")))
        else:
            parts.append(f"[{b.get('type', 'block')}]" if isinstance(b, dict) else str(b))
    return "\n".join(parts)
