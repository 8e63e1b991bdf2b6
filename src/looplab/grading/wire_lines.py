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


class WireClosed(LooplabError, ConnectionError):
    """The other side closed the connection, or sent something that is not a message."""


class Line:
    """One connection: `send` a value, `receive` the next one."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._file = sock.makefile("rb")
        self.lock = threading.Lock()
        """Held for a request and its reply, by whoever shares the connection."""

    def ask(self, value: Any) -> Any:
        """Send a request and wait for its reply, one thread at a time."""
        with self.lock:
            self.send(value)
            return self.receive()

    def send(self, value: Any) -> None:
        self.sock.sendall(json.dumps(value).encode("utf-8") + b"\n")

    def receive(self) -> Any:
        line = self._file.readline(MAX_LINE + 1)
        if not line.endswith(b"\n"):
            raise WireClosed("the connection closed mid-message, or the message is too long")
        try:
            return json.loads(line)
        except (ValueError, RecursionError) as e:
            raise WireClosed(f"not a message: {type(e).__name__}") from None

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
