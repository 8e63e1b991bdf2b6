"""The real anthropic SDK client, wired to a fake model through `httpx2.MockTransport`."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2

from .clock import FakeClock
from .models import FakeModel
from .server import AsyncFakeServer, FakeServer

FAKE_API_KEY = "sk-ant-fake-offline-key"
FAKE_BASE_URL = "https://api.anthropic.com"


def fake_client(
    model: FakeModel,
    *,
    clock: FakeClock | None = None,
    max_retries: int = 2,
    **options: Any,
) -> anthropic.Anthropic:
    """An `anthropic.Anthropic` whose requests are answered by `model`, offline.

    Everything above the HTTP layer is the real SDK: serialisation, retries, timeouts,
    response types and exceptions. A step's `delay_s` longer than the request's
    `timeout` times the request out (`anthropic.APITimeoutError` after the SDK's
    retries). With `clock`, delays and timeouts advance the clock instead of sleeping;
    the SDK's own waits between retries stay real time (1 ms after a scripted fault, at
    most 1.5 s over two retries after a timeout). Extra keyword arguments go to
    `anthropic.Anthropic` (e.g. `timeout`).
    """
    transport = httpx2.MockTransport(FakeServer(model, clock))
    return anthropic.Anthropic(
        api_key=FAKE_API_KEY,
        base_url=FAKE_BASE_URL,
        max_retries=max_retries,
        http_client=httpx2.Client(transport=transport),
        **options,
    )


def async_fake_client(
    model: FakeModel,
    *,
    clock: FakeClock | None = None,
    max_retries: int = 2,
    **options: Any,
) -> anthropic.AsyncAnthropic:
    """The `anthropic.AsyncAnthropic` twin of `fake_client`. Delays wait with
    `asyncio.sleep`, so concurrent requests overlap and never block the event loop."""
    transport = httpx2.MockTransport(AsyncFakeServer(model, clock))
    return anthropic.AsyncAnthropic(
        api_key=FAKE_API_KEY,
        base_url=FAKE_BASE_URL,
        max_retries=max_retries,
        http_client=httpx2.AsyncClient(transport=transport),
        **options,
    )
