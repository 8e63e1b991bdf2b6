"""What a tool returns, as `tool_result` content the API accepts: one rule for every value.

- `str`: sent as it is. Characters that JSON text cannot carry (a lone surrogate, as in a
  file name that is not UTF-8) are written as `\\udcff`-style escapes.
- `bytes`: decoded as UTF-8; bytes that are not UTF-8 are written as `\\xff` escapes.
- a list of content blocks (dicts with a `"type"`): sent as blocks if every block is a valid
  `tool_result` content block, that is:
  - pydantic, reading the list as the SDK's own `TextBlockParam | ImageBlockParam |
    DocumentBlockParam | SearchResultBlockParam`, gives back the very same list: no
    required field missing, no key it does not know, no value converted (so a text is a
    `str`, and an image's `media_type` is image/jpeg, image/png, image/gif or image/webp);
  - every text, nested ones too, has a character that is not whitespace;
  - all base64 `data` decodes to at least one byte.
  Otherwise the list is sent as JSON text, as below, so the model still sees the data.
- any other JSON value (dict, list, tuple, set, number, bool, `None`): sent as JSON text.
  A float that JSON has no word for (NaN, ±infinity) is written as a string.
- any other object: `str(value)`, sent as JSON text too (a JSON string, so in quotes).
- never sent, and answered with an `is_error` result that says why: a generator or other
  iterator, async ones too (its items were never produced; return `list(...)`), an
  awaitable that is not a coroutine, nesting deeper than `MAX_DEPTH`, an int too long to
  write, an object whose `str()` fails.

Then the size is capped. A result stays in the history and is sent again with every later
request, so it has to fit in the model's context window, and every request under the API's
32 MB body limit (over it, HTTP 413 `request_too_large` ends the run):

- text (a `str`, `bytes`, JSON text, or the text blocks of one list together) keeps its
  first `MAX_CHARS` characters and gets a note saying how many were cut and what to do.
- a block that is not text (image, document, search result) whose JSON is longer than
  `MAX_BLOCK_CHARS` is replaced by a text block saying it was dropped and why.

So no return value can make `client.messages.create` raise when the history is sent.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import AsyncIterator, Iterator
from functools import cache
from typing import Annotated, Any, TypeAlias

from anthropic.lib.tools import ToolError as _SDKToolError
from anthropic.types import (
    DocumentBlockParam,
    ImageBlockParam,
    SearchResultBlockParam,
    TextBlockParam,
)
from pydantic import Field, TypeAdapter, ValidationError

from ..errors import LooplabError
from ..i18n import worded

MAX_DEPTH = 64
"""Deepest nesting of lists and dicts sent; deeper output is an error result."""

MAX_CHARS = 100_000
"""Most characters of text sent for one tool result (about 25,000 tokens); the rest is cut."""

MAX_BLOCK_CHARS = 5 * 1024 * 1024
"""Longest JSON of one image, document or search result block sent. The API refuses an
image whose base64 data is over 5 MB ("image exceeds 5 MB maximum: ... bytes > 5242880
bytes"); measuring the whole block keeps to that, and is looplab's own cap for the rest."""

# The blocks the docs list for a tool_result's `content`. The SDK's union
# (`tool_result_block_param.Content`) also has `tool_reference` (tool search over deferred
# tools) and `browser_state`, which the lessons do not use: such a list is sent as JSON.
_Block: TypeAlias = TextBlockParam | ImageBlockParam | DocumentBlockParam | SearchResultBlockParam


class ToolError(LooplabError, _SDKToolError):
    """Raise it inside a tool to choose the `is_error` text the model sees.

        raise ToolError("no such module 'logn'; modules with tests: login, signup")

    It is the SDK's own `ToolError`, so tools written for `client.beta.messages.tool_runner`
    behave the same here.
    """


class Unsendable(LooplabError):
    """A tool's return value that has no `tool_result` form; the message says why."""


def to_content(value: Any) -> str | list[Any]:
    """`value` as `tool_result` content. Raises `Unsendable` saying what to return instead."""
    if isinstance(value, str):
        text = clean_text(value)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        text = bytes(value).decode("utf-8", errors="backslashreplace")
    else:
        data = _clean(value, 0)
        if isinstance(value, list) and _are_blocks(data):
            return _fit(data)
        text = json.dumps(data, ensure_ascii=False, allow_nan=False)
    if len(text) <= MAX_CHARS:
        return text
    return f"{text[:MAX_CHARS]}\n\n{_cut_note(len(text))}"  # the first MAX_CHARS, and a note


def describe(e: BaseException) -> str:
    """`TypeName: message` for an exception, even one whose `str()` raises."""
    try:
        text = str(e)
    except Exception:  # a broken __str__ must not break the report of the error
        text = "(its message could not be read)"
    return clean_text(f"{type(e).__name__}: {text}" if text else type(e).__name__)


def clean_text(text: str) -> str:
    """`text` with every character UTF-8 cannot encode written as an escape."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="backslashreplace").decode("utf-8")


@cache
def _blocks() -> TypeAdapter[list[_Block]]:
    """The validator of a list of blocks, built on first use (a few ms). It stops at the
    first bad block: a list of 10,000 records with a "type" costs nothing."""
    return TypeAdapter(Annotated[list[_Block], Field(fail_fast=True)])


def _are_blocks(data: list[Any]) -> bool:
    """Whether `data` (plain JSON data) is a non-empty list of valid content blocks."""
    if not data or not all(isinstance(b, dict) and "type" in b for b in data):
        return False
    try:
        read = _read(_blocks().validate_python(data, strict=True))
    except ValidationError:
        return False
    # pydantic drops the keys it does not know instead of refusing them, hence the compare
    return read == data and all(_sendable(d) for d in _dicts(data))


def _read(value: Any) -> Any:
    """A validated value with its `Iterable` fields read: pydantic checks those lazily,
    item by item as they are read (a bad item raises `ValidationError` then)."""
    if isinstance(value, dict):
        return {k: _read(v) for k, v in value.items()}
    if isinstance(value, (list, Iterator)):
        return [_read(v) for v in value]
    return value


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    """Every dict in `value`, at any depth."""
    if isinstance(value, dict):
        yield value
        value = list(value.values())
    if isinstance(value, list):
        for v in value:
            yield from _dicts(v)


def _sendable(d: dict[str, Any]) -> bool:
    """The checks the SDK's types cannot make: the API refuses blank text ("text content
    blocks must be non-empty"), and base64 data that does not decode cannot be an image."""
    if d.get("type") == "text" and isinstance(d.get("text"), str):
        return bool(d["text"].strip())
    if d.get("type") == "base64":
        try:
            return bool(base64.b64decode(d["data"], validate=True))
        except (binascii.Error, ValueError):
            return False
    return True


def _fit(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`blocks` within the caps: their texts share `MAX_CHARS`, any other block is dropped
    over `MAX_BLOCK_CHARS`."""
    fitted: list[dict[str, Any]] = []
    room = MAX_CHARS
    total = 0
    for block in blocks:
        if block["type"] == "text":
            text = block["text"]
            kept, room, total = text[:room], max(room - len(text), 0), total + len(text)
            if kept.strip():
                fitted.append(block if kept == text else {**block, "text": kept})
        elif (size := len(json.dumps(block, ensure_ascii=False))) > MAX_BLOCK_CHARS:
            fitted.append({"type": "text", "text": worded(
                "[looplab dropped this {kind} block: its JSON is {size:,} characters, over the "
                "{limit:,} looplab sends for one block (the API refuses an image over 5 MB). "
                "Make the tool send a smaller one, or save it to a file and return the path.]",
                kind=block["type"], size=size, limit=MAX_BLOCK_CHARS)})
        else:
            fitted.append(block)
    if total > MAX_CHARS:
        fitted.append({"type": "text", "text": _cut_note(total)})
    return fitted


def _cut_note(total: int) -> str:
    return worded("[looplab cut this output: it has {total:,} characters and only the first "
                  "{limit:,} are sent ({cut:,} cut). Make the tool return less (a summary, one "
                  "page at a time), or write the output to a file and return the path.]",
                  total=total, limit=MAX_CHARS, cut=total - MAX_CHARS)


def _clean(value: Any, depth: int) -> Any:
    """`value` as plain JSON data, or `Unsendable`."""
    if depth > MAX_DEPTH:
        raise Unsendable(worded("the output is nested more than {n} levels deep; return "
                                "flatter data or text", n=MAX_DEPTH))
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return _int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="backslashreplace")
    if isinstance(value, dict):
        return {_key(k): _clean(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return [_clean(v, depth + 1) for v in sorted(value, key=repr)]
    if isinstance(value, (Iterator, AsyncIterator)):  # e.g. a def or async def with yield
        raise Unsendable(worded("the tool returned a {kind}, whose items were never "
                                "produced; return a str or a list (e.g. list(...))",
                                kind=type(value).__name__))
    try:
        return clean_text(str(value))
    except Exception as e:
        raise Unsendable(worded("the tool returned a {kind} that cannot be written as text "
                                "({error}); return a str", kind=type(value).__name__,
                                error=describe(e))) from None


def _int(value: int) -> int | str:
    try:
        str(value)  # Python refuses to write ints of more than 4,300 digits
    except ValueError:
        digits = int(abs(value).bit_length() * math.log10(2)) + 1
        raise Unsendable(worded("the tool returned an int of about {n:,} digits, too long to "
                                "write; return it as text", n=digits)) from None
    return value


def _key(key: Any) -> str:
    if isinstance(key, str):
        return clean_text(key)
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)
    return clean_text(str(key))
