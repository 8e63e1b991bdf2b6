"""The kernel's side of a streamed answer: the grader keeps an event stream of its fake API
open (`Wire._read`) and the kernel asks for it piece by piece as the SDK reads, so the
check's clock moves with the student's code, as a live stream arrives."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from typing import Any

import httpx2


class WireStream(httpx2.SyncByteStream):
    """A streamed answer of the grader's fake API, read from the grader piece by piece:
    `ask` sends one request over the wire, `rebuilt` makes the grader's exception."""

    def __init__(self, ask: Callable[[dict[str, Any]], Any], number: int,
                 rebuilt: Callable[[dict[str, Any]], BaseException]) -> None:
        self.ask = ask
        self.number = number
        self.rebuilt = rebuilt

    def __iter__(self) -> Iterator[bytes]:
        while True:
            reply = self.ask({"op": "http_read", "stream": self.number})
            if not isinstance(reply, dict) or reply.get("done"):
                return
            if "raised" in reply:
                raise self.rebuilt(reply["raised"])
            yield base64.b64decode(reply["chunk"])
