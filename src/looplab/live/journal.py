"""A cassette as a journal: one line per exchange, appended as it happens, so a recording
costs what each exchange adds (`delta.py`), never a rewrite of the whole file."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from .cassette import Cassette, Exchange, encode, redact, write_whole


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
