"""What a tool returns, as `tool_result` content the API accepts: one rule for every value.

- `str`: sent as it is. Characters that JSON text cannot carry (a lone surrogate, as in a
  file name that is not UTF-8) are written as `\\udcff`-style escapes.
- `bytes`: decoded as UTF-8; bytes that are not UTF-8 are written as `\\xff` escapes.
- a list of content blocks (dicts with a `"type"`): sent as blocks.
- any other JSON value (dict, list, tuple, set, number, bool, `None`): sent as JSON text.
  A float that JSON has no word for (NaN, ±infinity) is written as a string.
- any other object: sent as `str(value)`.
- never sent, and answered with an `is_error` result that says why: a generator or other
  iterator, async ones too (its items were never produced; return `list(...)`), an
  awaitable that is not a coroutine, nesting deeper than `MAX_DEPTH`, an int too long to
  write, an object whose `str()` fails.

So no return value can make `client.messages.create` raise when the history is sent.
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Iterator
from typing import Any

MAX_DEPTH = 64
"""Deepest nesting of lists and dicts sent; deeper output is an error result."""


class Unsendable(Exception):
    """A tool's return value that has no `tool_result` form; the message says why."""


def to_content(value: Any) -> str | list[Any]:
    """`value` as `tool_result` content. Raises `Unsendable` saying what to return instead."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="backslashreplace")
    if isinstance(value, list) and value and all(
        isinstance(b, dict) and "type" in b for b in value
    ):
        blocks = _clean(value, 0)
        assert isinstance(blocks, list)
        return blocks
    return json.dumps(_clean(value, 0), ensure_ascii=False, allow_nan=False)


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


def _clean(value: Any, depth: int) -> Any:
    """`value` as plain JSON data, or `Unsendable`."""
    if depth > MAX_DEPTH:
        raise Unsendable(f"the output is nested more than {MAX_DEPTH} levels deep; "
                         "return flatter data or text")
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
        raise Unsendable(f"the tool returned a {type(value).__name__}, whose items were "
                         "never produced; return a str or a list (e.g. list(...))")
    try:
        return clean_text(str(value))
    except Exception as e:
        raise Unsendable(f"the tool returned a {type(value).__name__} that cannot be "
                         f"written as text ({describe(e)}); return a str") from None


def _int(value: int) -> int | str:
    try:
        str(value)  # Python refuses to write ints of more than 4,300 digits
    except ValueError:
        digits = int(abs(value).bit_length() * math.log10(2)) + 1
        raise Unsendable(f"the tool returned an int of about {digits:,} digits, "
                         "too long to write; return it as text") from None
    return value


def _key(key: Any) -> str:
    if isinstance(key, str):
        return clean_text(key)
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)
    return clean_text(str(key))
