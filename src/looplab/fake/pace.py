"""A streamed reply written at a speed: each `content_block_delta` arrives after its tokens.

A live stream starts after the model has read the prompt (the time to first token) and
then arrives a few tokens at a time as the model writes them. A reply scripted with
`tokens_per_s` is streamed that way: the body is read event by event, and before each delta
the wait for its tokens (`text_tokens` of its text or JSON, at `tokens_per_s`) passes, on
the `FakeClock` when the client has one (instantly), else in real time. The step's
`delay_s` stays the wait before the first event. Not streamed, the same reply arrives
whole once all of it is written (`whole`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator

import httpx2

from .clock import FakeClock
from .usage import text_tokens

_DELTA_FIELDS = ("text", "partial_json", "thinking")


def _wait_s(event: str, tokens_per_s: float) -> float:
    """Seconds before `event` (one server-sent event) arrives: its delta's tokens' worth."""
    if not event.startswith("event: content_block_delta\n"):
        return 0.0
    data = json.loads(event.split("data: ", 1)[1])
    written = "".join(str(data["delta"].get(key, "")) for key in _DELTA_FIELDS)
    return text_tokens(written) / tokens_per_s


class PacedStream(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """The events of one reply, each sent when its tokens are written."""

    def __init__(self, events: list[str], tokens_per_s: float, clock: FakeClock | None) -> None:
        self.waits = [(_wait_s(event, tokens_per_s), event.encode()) for event in events]
        self.clock = clock

    def whole(self, body: bytes) -> PacedStream:
        """`body` sent in one piece after the time the events would take."""
        self.waits = [(sum(wait for wait, _ in self.waits), body)]
        return self

    def __iter__(self) -> Iterator[bytes]:
        for wait, chunk in self.waits:
            if wait and self.clock is not None:
                self.clock.advance(wait)
            elif wait:
                time.sleep(wait)
            yield chunk

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for wait, chunk in self.waits:
            if wait and self.clock is not None:
                self.clock.advance(wait)
            elif wait:
                await asyncio.sleep(wait)
            yield chunk
