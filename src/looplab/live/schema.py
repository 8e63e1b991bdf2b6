"""What a cassette's lines must look like, checked with JSON Schema (`jsonschema`), so that
a wrong file fails with one line naming the place, e.g. `exchange 3: response.status: 'abc'
is not of type 'integer'`, and never with a TypeError or KeyError from deep inside."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import NotACassette
from ..schemas import best_match, validator

_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
_REQUEST = {
    "type": "object",
    "required": ["method", "path"],
    "properties": {
        "method": {"type": "string"},
        "path": {"type": "string"},
        "query": {"type": "string"},
        "body": {},
        "extends": {
            "type": "object",
            "required": ["messages", "keys"],
            "properties": {
                "messages": {"type": "integer", "minimum": 0},
                "keys": {"type": "array", "items": {"type": "string"}},
            },
        },
    },
    "if": {"required": ["extends"]},
    "then": {"properties": {"body": {"type": "object", "required": ["messages"],
                                     "properties": {"messages": {"type": "array"}}}},
             "required": ["body"]},
}
_RESPONSE = {
    "type": "object",
    "required": ["status"],
    "properties": {
        "status": {"type": "integer", "minimum": 100, "maximum": 599},
        "headers": _STRINGS,
        "body": {},
        "text": {"type": "array", "items": {"type": "string"}},
    },
}
EXCHANGE = {
    "type": "object",
    "required": ["request", "response"],
    "properties": {"request": _REQUEST, "response": _RESPONSE},
}
_HEADER = {
    "note": {"type": "string"},
    "endpoint": {"type": "string"},
    "live": {"type": "boolean"},
}
_OLD = {"type": "object", "properties": {**_HEADER, "exchanges": {"type": "array"}}}


def check_header(source: Path, data: Any, expected: str) -> None:
    """Raise `ValueError` unless `data` is a cassette's first line."""
    if not isinstance(data, dict) or data.get("format") != expected:
        raise NotACassette(f"{source} is not a cassette: its 'format' is not {expected!r}")
    _check(f"{source} is not a valid cassette", data, {"type": "object", "properties": _HEADER})


def check_old(source: Path, data: Any, expected: str) -> None:
    """Raise `ValueError` unless `data` is a cassette in the first format (its exchanges
    are checked one by one)."""
    if not isinstance(data, dict) or data.get("format") != expected:
        raise NotACassette(f"{source} is not a cassette: its 'format' is not {expected!r}")
    _check(f"{source} is not a valid cassette", data, _OLD)


def check_exchange(where: str, data: Any) -> None:
    """Raise `ValueError` unless `data` is one exchange of a cassette (`where` begins the
    message: "FILE is not a valid cassette: exchange 3")."""
    _check(where, data, EXCHANGE)


def _check(where: str, data: Any, schema: dict[str, Any]) -> None:
    error = best_match(validator(schema).iter_errors(data))
    if error is None:
        return
    place = ".".join(str(part) for part in error.absolute_path)
    shown = error.message if len(error.message) <= 120 else error.message[:117] + "..."
    raise NotACassette(f"{where}: {place or 'the entry'}: {shown}")
