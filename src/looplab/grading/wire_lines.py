"""The wire between the grader and a student's kernel: one JSON value per line over a Unix
socket. Both sides use this module; only plain JSON crosses it, parsed by `json.loads`,
so the grader never holds an object the kernel made."""

from __future__ import annotations

import json
import os
import socket
import threading
from typing import Any

from ..errors import LooplabError

MAX_LINE = 32_000_000
"""Bytes one message may have; a longer line ends the connection."""
CHUNK = 65_536
"""Bytes read at a time, each counted against the connection's `Budget` before the next."""


class WireClosed(LooplabError, ConnectionError):
    """The other side closed the connection, or sent something that is not a message."""


class Flooded(WireClosed):
    """The kernel sent more than its `Budget` allows: the grader stops reading it."""


class Budget:
    """Bytes the unread messages of one kernel's connections may hold at once, all together:
    what a kernel can make the grader hold in memory."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._used = 0
        self._lock = threading.Lock()

    def take(self, size: int) -> bool:
        with self._lock:
            if self._used + size > self.limit:
                return False
            self._used += size
            return True

    def give(self, size: int) -> None:
        with self._lock:
            self._used -= size


def signed(token: str) -> bytes:
    """How every message of a kernel begins: its token, the first key of its JSON object,
    checked before anything else of the message is read."""
    return json.dumps({"token": token})[:-1].encode()


class Line:
    """One connection: `send` a value, `receive` the next one. The grader's side of a
    kernel's connection reads only messages that begin with the kernel's token (`token`),
    with their bytes counted against `budget`; a message without the token ends it."""

    def __init__(self, sock: socket.socket, *, token: str | None = None,
                 budget: Budget | None = None) -> None:  # fmt: skip
        self.sock = sock
        self._file = sock.makefile("rb")
        self._prefix = signed(token) if token is not None else b""
        self._budget = budget
        self.lock = threading.Lock()
        """Held for a request and its reply, by whoever shares the connection."""

    def ask(self, value: Any) -> Any:
        """Send a request and wait for its reply, one thread at a time."""
        with self.lock:
            self.send(value)
            return self.receive()

    def send(self, value: Any, token: str | None = None) -> None:
        """Send `value`; with `token`, as a dict that begins with it (`signed`)."""
        if token is not None and isinstance(value, dict):
            value = {"token": token, **{k: v for k, v in value.items() if k != "token"}}
        self.sock.sendall(json.dumps(value).encode("utf-8") + b"\n")

    def receive(self) -> Any:
        taken = 0
        try:
            pieces: list[bytes] = []
            if self._prefix:
                head = self._file.read(len(self._prefix))
                if head != self._prefix:
                    raise WireClosed("a message that does not begin with the kernel's token")
            while True:
                piece = self._file.readline(CHUNK)
                if self._prefix and not pieces:  # the token's key and value: left out
                    piece = b"{" + piece.removeprefix(b", ")
                if self._budget is not None and not self._budget.take(len(piece)):
                    raise Flooded(f"its kernel sent the grader more than "
                                  f"{self._budget.limit // 1_000_000} MB at once")  # fmt: skip
                taken += len(piece)
                pieces.append(piece)
                if piece.endswith(b"\n"):
                    break
                if not piece or taken > MAX_LINE:
                    raise WireClosed(
                        "the connection closed mid-message, or the message is too long"
                    )
            line = b"".join(pieces)
            pieces.clear()
            try:
                return json.loads(line)
            except (ValueError, RecursionError) as e:
                raise WireClosed(f"not a message: {type(e).__name__}") from None
        finally:
            if self._budget is not None:
                self._budget.give(taken)

    def close(self) -> None:
        self._file.close()
        self.sock.close()


MAX_SOCKET_PATH = 100
"""A socket's path is at most 107 bytes (`sun_path`); a longer one is reached through its
folder's file descriptor, `/proc/self/fd/N/name`, which is short wherever the folder is."""


def at_path(sock: socket.socket, path: str, act: str) -> None:
    """`sock.bind(path)` or `sock.connect(path)` (`act`), whatever the path's length."""
    if len(os.fsencode(path)) <= MAX_SOCKET_PATH or not os.path.isdir("/proc/self/fd"):
        getattr(sock, act)(path)
        return
    folder, name = os.path.split(path)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        getattr(sock, act)(f"/proc/self/fd/{fd}/{name}")
    finally:
        os.close(fd)


def connect(path: str) -> Line:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    at_path(sock, path, "connect")
    return Line(sock)
