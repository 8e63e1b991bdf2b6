"""`replay(path)`: a client that answers from a cassette, offline and in recorded order.

Each request must be the one recorded at its position: same method, path, query and JSON
body. The first one that is not raises `ReplayMismatch`, naming the request and the first
place where the bodies differ, e.g. `messages.4.content.0.content`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import httpx2

from ..errors import LooplabError
from .cassette import Cassette


class _Missing:
    def __repr__(self) -> str:
        return "nothing"


MISSING = _Missing()
"""What `first_difference` reports for a key or item that one side does not have."""
_RETRIED = (408, 409, 429)
REPLAY_API_KEY = "sk-ant-replay-offline"


class ReplayMismatch(LooplabError, anthropic.AnthropicError):
    """A request differs from the recorded one, or goes past the end of the cassette.

    It subclasses `anthropic.AnthropicError`, so the SDK neither wraps nor retries it, and
    `run_agent` does not turn it into a stopped run: it reaches the caller as is.
    """


class Player:
    """Serves one cassette; `client()` is the `anthropic.Anthropic` wired to it."""

    def __init__(self, cassette: Cassette, name: str = "the cassette") -> None:
        self.cassette = cassette
        self.name = name
        self.position = 0
        """How many exchanges have been played."""

    @property
    def remaining(self) -> int:
        return len(self.cassette.exchanges) - self.position

    def assert_complete(self) -> None:
        """Raise `AssertionError` unless every recorded exchange was played."""
        if self.remaining:
            raise AssertionError(
                f"{self.name}: {self.remaining} of {len(self.cassette.exchanges)} recorded "
                f"request(s) were not sent; the loop stopped after request {self.position}."
            )

    def client(self, *, max_retries: int = 2) -> anthropic.Anthropic:
        endpoint = self.cassette.endpoint
        base_url = endpoint if endpoint.startswith(("http://", "https://")) else None
        return anthropic.Anthropic(
            api_key=REPLAY_API_KEY,
            base_url=base_url or "https://api.anthropic.com",
            max_retries=max_retries,
            http_client=httpx2.Client(transport=httpx2.MockTransport(self)),
        )

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        number = self.position + 1
        exchanges = self.cassette.exchanges
        if self.position >= len(exchanges):
            raise ReplayMismatch(
                f"replay of {self.name}: request {number} was not recorded; the cassette "
                f"holds {len(exchanges)} request(s). The loop went on after the recorded "
                "run had stopped."
            )
        exchange = exchanges[self.position]
        sent_target = _target(request.method, request.url.path, _query(request))
        recorded_target = _target(exchange.method, exchange.path, exchange.query)
        if sent_target != recorded_target:
            raise ReplayMismatch(
                f"replay of {self.name}: request {number} goes to {sent_target}, but the "
                f"recorded request {number} went to {recorded_target}."
            )
        sent = json.loads(request.content) if request.content else None
        difference = first_difference(exchange.body, sent)
        if difference is not None:
            where, recorded, now = difference
            raise ReplayMismatch(
                f"replay of {self.name}: request {number} differs from the recorded one at "
                f"{where}: recorded {_show(recorded)}, sent {_show(now)}. The loop now sends "
                "something the recorded run did not; replay needs the same requests in the "
                "same order (record the run again, or turn the cassette into a script)."
            )
        self.position += 1
        headers = dict(exchange.headers)
        if exchange.status in _RETRIED or exchange.status >= 500:
            headers["retry-after-ms"] = "1"  # the SDK retries at once: replays do not wait
        if exchange.text is not None:
            return httpx2.Response(exchange.status, headers=headers, content=exchange.response_text)
        return httpx2.Response(exchange.status, headers=headers, json=exchange.response)


def replay(cassette: str | Path | Cassette, *, max_retries: int = 2) -> anthropic.Anthropic:
    """A client that answers every request from `cassette` (a path or a `Cassette`), offline.

    It raises `ReplayMismatch` at the first request that differs from the recorded one. Use
    `Player(cassette).client()` instead to check afterwards that every request was sent.
    """
    if isinstance(cassette, Cassette):
        return Player(cassette).client(max_retries=max_retries)
    return Player(Cassette.load(cassette), str(cassette)).client(max_retries=max_retries)


def first_difference(recorded: Any, sent: Any, where: str = "") -> tuple[str, Any, Any] | None:
    """The first place (an API-style path) where two JSON values differ, with both values."""
    if isinstance(recorded, dict) and isinstance(sent, dict):
        for key in [*recorded, *(k for k in sent if k not in recorded)]:
            found = first_difference(
                recorded.get(key, MISSING), sent.get(key, MISSING), _join(where, key)
            )
            if found is not None:
                return found
        return None
    if isinstance(recorded, list) and isinstance(sent, list):
        for index in range(max(len(recorded), len(sent))):
            found = first_difference(
                recorded[index] if index < len(recorded) else MISSING,
                sent[index] if index < len(sent) else MISSING,
                _join(where, index),
            )
            if found is not None:
                return found
        return None
    if type(recorded) is type(sent) and recorded == sent:
        return None
    return (where or "the body", recorded, sent)


def _join(where: str, key: object) -> str:
    return f"{where}.{key}" if where else str(key)


def _show(value: Any) -> str:
    if value is MISSING:
        return "nothing"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _query(request: httpx2.Request) -> str:
    return request.url.query.decode("ascii") if request.url.query else ""


def _target(method: str, path: str, query: str) -> str:
    return f"{method} {path}" + (f"?{query}" if query else "")
