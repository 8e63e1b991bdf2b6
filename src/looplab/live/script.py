"""`to_script(cassette)`: a recorded run as a `ScriptedModel`, to read, edit and replay.

Each recorded answer becomes one step: a 200 message becomes a `Reply` with the same
blocks (ids and thinking signatures kept), `stop_reason`, `stop_details` and `usage`; an
error other than 400 becomes a `Fault` (the SDK retries it as it did live). A 400 is
left out: the fake answers a broken history with its own 400 and plays no step for it.
Unlike a replay, a script does not insist on the recorded requests.
"""

from __future__ import annotations

from typing import Any

import anthropic

from ..errors import NotACassette
from ..fake import ScriptedModel
from ..fake.steps import Fault, Reply, Step
from .cassette import Cassette, Exchange
from .player import Player

USAGE_FIELDS = (
    "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"
)
_RETRY_HEADERS = ("retry-after", "x-should-retry")


def to_script(cassette: Cassette) -> ScriptedModel:
    """The answers of `cassette`'s `/v1/messages` exchanges as a `ScriptedModel`."""
    steps: list[Step] = []
    for number, exchange in enumerate(cassette.exchanges, start=1):
        if not exchange.path.endswith("/v1/messages") or exchange.status == 400:
            continue
        try:
            if exchange.status < 300:
                steps.append(_reply(exchange, cassette.endpoint))
            else:
                steps.append(_fault(exchange))
        # what a hand-edited answer makes the SDK or the script's checks raise
        except (AssertionError, ValueError, TypeError, KeyError, anthropic.AnthropicError) as e:
            reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise NotACassette(f"exchange {number} ({exchange.method} {exchange.path}, status "
                               f"{exchange.status}) cannot become a step: {reason}") from None
    return ScriptedModel(steps)


def _reply(exchange: Exchange, endpoint: str) -> Reply:
    message = exchange.response if exchange.text is None else _assemble(exchange, endpoint)
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        raise ValueError(
            f"the recorded answer to {exchange.method} {exchange.path} is not a message; "
            "a cassette can only be turned into a script if its 200 answers are messages"
        )
    usage = message.get("usage") or {}
    return Reply(
        content=tuple(dict(block) for block in message["content"]),
        stop_reason=message.get("stop_reason"),
        stop_details=message.get("stop_details"),
        stop_sequence=message.get("stop_sequence"),
        usage={name: usage[name] for name in USAGE_FIELDS if isinstance(usage.get(name), int)},
    )


def _fault(exchange: Exchange) -> Fault:
    error = exchange.response.get("error") if isinstance(exchange.response, dict) else None
    if not isinstance(error, dict):
        first_line = next((line for line in exchange.text or [] if line.strip()), "")
        error = {"type": "api_error", "message": first_line[:200] or f"HTTP {exchange.status}"}
    headers = {k: v for k, v in exchange.headers.items() if k in _RETRY_HEADERS}
    return Fault(
        status=exchange.status,
        type=str(error.get("type", "api_error")),
        message=str(error.get("message", "")),
        headers={**headers, "retry-after-ms": "1"},
        details=error.get("details"),
    )


def _assemble(exchange: Exchange, endpoint: str) -> dict[str, Any]:
    """A streamed answer as one message: the SDK's own stream helper reads the replayed
    events (rather than our own parser of server-sent events)."""
    one = Cassette([exchange], endpoint=endpoint)
    client = Player(one, "the streamed answer").client(max_retries=0)
    body = {k: v for k, v in dict(exchange.body or {}).items() if k != "stream"}
    messages = client.beta.messages if "beta=true" in exchange.query else client.messages
    with messages.stream(**body) as stream:
        final = stream.get_final_message()
    return final.model_dump(mode="json", exclude_none=True)
