"""Token counts for the fake API. They are an ESTIMATE, not Claude's tokenizer.

How `estimate_tokens` counts a request (system + tools + every message):

- text: 1 token per 4 ASCII characters, 1 per wide character (Chinese, Japanese, Korean,
  full-width forms), 1 per 2 other characters; rounded up per piece of text;
- `tool_use`: its name and its input as compact JSON, counted as text;
- `tool_result`: its content (a string or blocks), counted the same way;
- an image or a PDF: a flat 1,600 tokens;
- fixed overheads: 4 per message, 3 per content block, 10 per tool definition (plus its
  name, description and schema as text), 3 for a system prompt;
- a tool defined with `defer_loading: true` counts nothing until a `tool_reference` in
  the history loads it (tool search, see `search.py`).

Every part is counted on its own and added, so a longer history never counts fewer
tokens. Real counts differ (and differ between models); lessons compare growth, not
exact numbers.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .search import hidden_tools

MESSAGE_OVERHEAD = 4
BLOCK_OVERHEAD = 3
TOOL_OVERHEAD = 10
SYSTEM_OVERHEAD = 3
MEDIA_TOKENS = 1600


@functools.cache
def _quarters(char: str) -> int:
    """A character's share of a token, in quarter tokens."""
    if ord(char) < 128:
        return 1
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 4
    return 2


_ASCII = re.compile(r"[\x00-\x7f]+")


def text_tokens(text: str) -> int:
    """Estimated tokens of a piece of text (see the module docstring). ASCII is counted
    at once; only the other characters are looked at one by one."""
    if text.isascii():
        return math.ceil(len(text) / 4)
    rest = _ASCII.sub("", text)
    return math.ceil((len(text) - len(rest) + sum(map(_quarters, rest))) / 4)


def fit_text(text: str, tokens: int) -> str:
    """The longest start of `text` that counts at most `tokens` tokens."""
    budget = 4 * max(0, tokens)
    for index, char in enumerate(text):
        budget -= _quarters(char)
        if budget < 0:
            return text[:index]
    return text


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _plain(value: Any) -> Any:
    """SDK pydantic blocks (what `response.content` holds) as plain dicts."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_none=True)
    return value


def block_tokens(block: Any) -> int:
    """Estimated tokens of one content block, without the per-block overhead."""
    block = _plain(block)
    if isinstance(block, str):
        return text_tokens(block)
    if not isinstance(block, Mapping):
        return text_tokens(_compact(block))
    kind = block.get("type")
    if kind == "text":
        return text_tokens(str(block.get("text", "")))
    if kind == "thinking":
        return text_tokens(str(block.get("thinking", "")))
    if kind in ("tool_use", "server_tool_use"):
        return text_tokens(str(block.get("name", ""))) + text_tokens(_compact(block.get("input")))
    if kind == "tool_result":
        content = block.get("content")
        if content is None:
            return 0
        if isinstance(content, str):
            return text_tokens(content)
        if isinstance(content, Iterable):
            return sum(BLOCK_OVERHEAD + block_tokens(part) for part in content)
        return text_tokens(_compact(content))
    if kind in ("image", "document"):
        source = block.get("source")
        if isinstance(source, Mapping) and source.get("type") == "text":
            return text_tokens(str(source.get("data", "")))
        return MEDIA_TOKENS
    rest = {key: value for key, value in block.items() if key not in ("type", "cache_control")}
    return text_tokens(_compact(rest))


@dataclass(frozen=True)
class _Piece:
    """One countable part of a request, in the order the API caches it."""

    tokens: int
    identity: str
    breakpoint: bool


def _strip_cache_control(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: val for key, val in value.items() if key != "cache_control"}
    return value


def _block_piece(block: Any, extra: int) -> _Piece:
    block = _plain(block)
    marked = isinstance(block, Mapping) and bool(block.get("cache_control"))
    return _Piece(extra + block_tokens(block), _compact(_strip_cache_control(block)), marked)


Known = dict[int, tuple[Any, list[_Piece]]]
"""Pieces already made, by message: `id(message) -> (message, its pieces)`."""


def _pieces(body: Mapping[str, Any], known: Known | None = None) -> list[_Piece]:
    """Tools, then system, then messages: the API's cache prefix order. With `known`, a
    message object counted before is not counted again (a history the fake has seen
    keeps its message objects from one request to the next)."""
    pieces: list[_Piece] = []
    tools = body.get("tools")
    hidden = hidden_tools(body)  # deferred tools count nothing until loaded (search.py)
    for tool in tools if isinstance(tools, list) else []:
        tool = _plain(tool)
        if isinstance(tool, Mapping) and tool.get("name") in hidden:
            continue
        marked = isinstance(tool, Mapping) and bool(tool.get("cache_control"))
        identity = _compact(_strip_cache_control(tool))
        pieces.append(_Piece(TOOL_OVERHEAD + text_tokens(identity), identity, marked))
    system = body.get("system")
    if isinstance(system, str) and system:
        pieces.append(_Piece(SYSTEM_OVERHEAD + text_tokens(system), _compact(system), False))
    elif isinstance(system, list) and system:
        pieces.append(_Piece(SYSTEM_OVERHEAD, "system", False))
        pieces.extend(_block_piece(block, 0) for block in system)
    messages = body.get("messages")
    now: Known = {}
    for message in messages if isinstance(messages, list) else []:
        seen = known.get(id(message)) if known is not None else None
        made = seen[1] if seen is not None and seen[0] is message else _message_pieces(message)
        now[id(message)] = (message, made)
        pieces.extend(made)
    if known is not None:  # keep this request's messages only: one history, never more
        known.clear()
        known.update(now)
    if body.get("cache_control") and pieces:
        # top-level cache_control marks the last cacheable block of the request
        last = pieces[-1]
        pieces[-1] = _Piece(last.tokens, last.identity, True)
    return pieces


def _message_pieces(message: Any) -> list[_Piece]:
    message = _plain(message)
    if not isinstance(message, Mapping):
        return [_Piece(MESSAGE_OVERHEAD, _compact(message), False)]
    pieces = [_Piece(MESSAGE_OVERHEAD, _compact(message.get("role")), False)]
    content = message.get("content")
    if isinstance(content, str):
        pieces.append(_block_piece({"type": "text", "text": content}, BLOCK_OVERHEAD))
    elif isinstance(content, list):
        pieces.extend(_block_piece(block, BLOCK_OVERHEAD) for block in content)
    return pieces


def estimate_tokens(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Messages request body: system + tools + every message.

    This is an estimate, not Claude's tokenizer; see the module docstring for the rules.
    `POST /v1/messages/count_tokens` on the fake answers with this number.
    """
    return sum(piece.tokens for piece in _pieces(body))


def output_tokens(content: Iterable[Any]) -> int:
    """Estimated output tokens of a reply's content; never 0, as with the real API."""
    return max(1, sum(block_tokens(block) for block in content))


class PromptCache:
    """Prompt-cache accounting by `cache_control` breakpoints.

    The prefix up to the last breakpoint is written the first time it is seen
    (`cache_creation_input_tokens`) and read when it comes again
    (`cache_read_input_tokens`); `input_tokens` counts what follows the last breakpoint.
    As with the API, a read may also hit a prefix written earlier that ends up to
    `LOOKBACK` blocks before a breakpoint, so moving the breakpoint to the newest message
    each turn reads the previous turn's prefix. Simplified: no minimum cacheable length,
    and entries never expire.
    """

    LOOKBACK = 20

    def __init__(self) -> None:
        self._written: set[str] = set()
        self._known: Known = {}
        self._last: tuple[Mapping[str, Any], list[_Piece]] | None = None

    def _pieces_of(self, body: Mapping[str, Any]) -> list[_Piece]:
        """`_pieces(body)`, made once for a body that is both counted and accounted."""
        if self._last is None or self._last[0] is not body:
            self._last = (body, _pieces(body, self._known))
        return self._last[1]

    def count(self, body: Mapping[str, Any]) -> int:
        """`estimate_tokens(body)`, counting only the messages not counted before."""
        return sum(piece.tokens for piece in self._pieces_of(body))

    def account(self, body: Mapping[str, Any]) -> tuple[int, int, int]:
        """`(input_tokens, cache_creation_input_tokens, cache_read_input_tokens)`."""
        pieces = self._pieces_of(body)
        total = sum(piece.tokens for piece in pieces)
        marks = [index for index, piece in enumerate(pieces) if piece.breakpoint]
        if not marks:
            return total, 0, 0
        candidates = {i for mark in marks for i in range(max(0, mark - self.LOOKBACK), mark + 1)}
        digest = hashlib.sha256(_compact(body.get("model")).encode())
        keys: dict[int, str] = {}  # prefix key after each candidate piece
        ends: dict[int, int] = {}  # tokens up to and including each candidate piece
        running = 0
        for index, piece in enumerate(pieces[: marks[-1] + 1]):
            digest.update(piece.identity.encode() + b"\0")
            running += piece.tokens
            if index in candidates:
                keys[index], ends[index] = digest.hexdigest(), running
        hits = [i for i in candidates if keys[i] in self._written]
        read = ends[max(hits)] if hits else 0
        creation = max(0, ends[marks[-1]] - read)
        self._written.update(keys[mark] for mark in marks)
        return total - creation - read, creation, read
