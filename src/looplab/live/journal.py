"""A cassette as a journal: one line per exchange, appended as it happens, so a recording
costs what each exchange adds, never a rewrite of the whole file.

Every request of an agent run repeats the whole history before it and adds a message or
two. A request whose body starts with the previous request's messages is written as
`"extends": {"messages": N, "keys": [...]}` (the previous body's first N messages and the
listed keys, unchanged) plus a `body` of what differs, so a cassette grows with the run,
not with the square of it.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from .cassette import Cassette, Exchange, header_of, parse_json, redact, write_whole
from .schema import check_exchange


def encode(exchange: Exchange, previous: Any) -> str:
    """One exchange as its line, keeping only what its body adds to `previous`."""
    data = exchange.to_json()
    body = exchange.body
    shared = _shared(previous, body)
    if shared is not None:
        kept, keys = shared
        rest = {k: v for k, v in body.items() if k not in keys and k != "messages"}
        request = {k: v for k, v in data["request"].items() if k != "body"}
        request["extends"] = {"messages": kept, "keys": keys}
        request["body"] = {**rest, "messages": body["messages"][kept:]}
        data["request"] = request
    return json.dumps(data, ensure_ascii=False)


def _shared(previous: Any, body: Any) -> tuple[int, list[str]] | None:
    """How many leading messages, and which other keys, `body` has as `previous` had them."""
    if not (isinstance(previous, dict) and isinstance(body, dict)):
        return None
    before, now = previous.get("messages"), body.get("messages")
    if not (isinstance(before, list) and isinstance(now, list)):
        return None
    kept = 0
    for old, new in zip(before, now, strict=False):
        if old != new:
            break
        kept += 1
    if kept == 0:
        return None
    keys = sorted(k for k, v in previous.items()
                  if k != "messages" and k in body and body[k] == v)
    return kept, keys


def read(source: Path, text: str) -> Cassette:
    """A cassette from the lines of its file. A last line cut off half-way (the recording
    stopped while writing it) is left out."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1].strip() and not text.endswith("\n"):
        try:
            json.loads(lines[-1])
        except (ValueError, RecursionError):
            lines.pop()
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        raise ValueError(f"{source} is not a cassette: it is empty")
    cassette = header_of(source, parse_json(source, numbered[0][1]))
    previous: Any = None
    for number, line in numbered[1:]:
        where = f"{source} is not a valid cassette: line {number}"
        data = parse_json(f"{source} line {number}", line)
        check_exchange(where, data)
        exchange = Exchange.from_json(data, _body(where, data["request"], previous))
        cassette.exchanges.append(exchange)
        previous = exchange.body
    return cassette


def _body(where: str, request: dict[str, Any], previous: Any) -> Any:
    """The whole body of `request`, rebuilt from `previous` when it extends it."""
    extends = request.get("extends")
    if extends is None:
        return request.get("body")
    kept, keys = extends["messages"], extends["keys"]
    before = previous.get("messages") if isinstance(previous, dict) else None
    if not isinstance(before, list) or len(before) < kept or any(k not in previous for k in keys):
        raise ValueError(f"{where}: it extends the previous request, which does not have "
                         f"{kept} messages and the keys {', '.join(keys) or '(none)'}")
    body = {k: previous[k] for k in keys}
    body.update(request["body"])
    body["messages"] = before[:kept] + request["body"]["messages"]
    return body


class Journal:
    """The file a recording appends to, one exchange a line. Safe to share between threads:
    each line is written whole, under a lock, in the order the exchanges finished."""

    def __init__(self, path: Path, cassette: Cassette, *, replace: bool) -> None:
        self.path = path
        self.previous: Any = None
        self.lock = threading.Lock()
        first = json.dumps(cassette.header(), ensure_ascii=False) + "\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        if replace:
            write_whole(path, first)
        else:  # a new file only: fails on any name that exists, a link included
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                _write(descriptor, first)
            finally:
                os.close(descriptor)

    def append(self, exchange: Exchange, secrets: tuple[str, ...]) -> None:
        """Add one exchange (any secret in it written as `[redacted]`)."""
        with self.lock:
            line = redact(encode(exchange, self.previous), secrets) + "\n"
            flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
            descriptor = os.open(self.path, flags)
            start = os.lseek(descriptor, 0, os.SEEK_END)
            try:
                _write(descriptor, line)
            except OSError:  # e.g. the disk is full: leave no half line behind
                with contextlib.suppress(OSError):
                    os.ftruncate(descriptor, start)
                raise
            finally:
                os.close(descriptor)
            self.previous = exchange.body


def _write(descriptor: int, text: str) -> None:
    data = text.encode("utf-8")
    while data:
        data = data[os.write(descriptor, data):]
