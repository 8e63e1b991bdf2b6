"""The real anthropic SDK client, wired to a fake model through `httpx2.MockTransport`."""

from __future__ import annotations

from typing import Any, TypeVar

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
    retries). With `clock`, delays and timeouts advance the clock instead of sleeping,
    and the SDK's own waits between retries are skipped (the clock does not count them);
    without it, they are real time (1 ms after a scripted fault, at most 1.5 s over two
    retries after a timeout). Extra keyword arguments go to `anthropic.Anthropic` (e.g.
    `timeout`).
    """
    transport = httpx2.MockTransport(FakeServer(model, clock))
    return _pointed_at(anthropic.Anthropic, httpx2.Client(transport=transport), clock,
                       max_retries, options)


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
    return _pointed_at(anthropic.AsyncAnthropic, httpx2.AsyncClient(transport=transport), clock,
                       max_retries, options)


Client = TypeVar("Client", anthropic.Anthropic, anthropic.AsyncAnthropic)


def _pointed_at(make: type[Client], http_client: Any, clock: FakeClock | None,
                max_retries: int, options: dict[str, Any]) -> Client:
    """A client of class `make` whose HTTP goes to the fake's transport."""
    client = make(api_key=FAKE_API_KEY, base_url=FAKE_BASE_URL, max_retries=max_retries,
                  http_client=http_client, **options)
    return _without_retry_waits(client) if clock is not None else client


def _without_retry_waits(client: Client) -> Client:
    """`client`, and every copy `with_options` makes of it, retrying without waiting.

    The SDK sleeps between retries in real time and offers no public hook for it (2.17's
    middleware wraps each attempt, not the wait between them), so this replaces its
    `_sleep_for_retry` on the instance (the name from anthropic 2.15 to 2.17). An SDK
    without it is refused, not patched in vain: the clock's promise would silently break.
    The instance keeps its type: it is still an `anthropic.Anthropic`."""
    if not callable(getattr(type(client), "_sleep_for_retry", None)):
        raise RuntimeError(
            f"anthropic {anthropic.__version__} has no _sleep_for_retry, which a FakeClock "
            "needs to skip the waits between retries: install the SDK version looplab pins "
            "(pip install -c constraints.txt -e .), or leave out clock=")

    def no_wait(**_: Any) -> None:
        return None

    async def no_wait_async(**_: Any) -> None:
        return None

    is_async = isinstance(client, anthropic.AsyncAnthropic)
    setattr(client, "_sleep_for_retry", no_wait_async if is_async else no_wait)  # noqa: B010
    copy = client.copy

    def copied(*args: Any, **kwargs: Any) -> Client:
        return _without_retry_waits(copy(*args, **kwargs))

    setattr(client, "copy", copied)  # noqa: B010
    setattr(client, "with_options", copied)  # noqa: B010
    return client
