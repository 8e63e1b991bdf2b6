"""`to_script(cassette)`: a recorded run as a `ScriptedModel`, to read, edit and replay.

Each recorded answer becomes one step: a 200 message becomes a `Reply` with the same
blocks (ids and thinking signatures kept), `stop_reason`, `stop_details` and `usage`; an
error other than 400 becomes a `Fault` (the SDK retries it as it did live). A 400 is
left out: the fake answers a broken history with its own 400 and plays no step for it.
Unlike a replay, a script does not insist on the recorded requests.
"""

from __future__ import annotations

import json
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
    for index, block in enumerate(message["content"]):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise ValueError(
                f"content block {index} of the recorded answer is {_short(block)}, not an "
                "object with a \"type\"; a text block is {\"type\": \"text\", \"text\": "
                "\"...\"}: fix that block in the file, or record the run again")
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
    details = error.get("details")
    if details is not None and not isinstance(details, dict):
        raise ValueError(
            f"the recorded error's \"details\" is {_short(details)}; the API sends an object "
            "there (e.g. {\"error_code\": \"...\"}) or nothing: make it an object, or remove it")
    headers = {k: v for k, v in exchange.headers.items() if k in _RETRY_HEADERS}
    return Fault(
        status=exchange.status,
        type=str(error.get("type", "api_error")),
        message=str(error.get("message", "")),
        headers={**headers, "retry-after-ms": "1"},
        details=details,
    )


def _assemble(exchange: Exchange, endpoint: str) -> dict[str, Any]:
    """A streamed answer as one message: the SDK's own stream helper reads the replayed
    events (rather than our own parser of server-sent events)."""
    _check_events(exchange.text or [])
    one = Cassette([exchange], endpoint=endpoint)
    client = Player(one, "the streamed answer").client(max_retries=0)
    body = {k: v for k, v in dict(exchange.body or {}).items() if k != "stream"}
    messages = client.beta.messages if "beta=true" in exchange.query else client.messages
    try:
        with messages.stream(**body) as stream:
            final = stream.get_final_message()
    except (AssertionError, ValueError, TypeError, KeyError, anthropic.AnthropicError) as e:
        raise ValueError(
            f"its server-sent events do not make one message ({type(e).__name__}"
            f"{': ' + str(e).splitlines()[0][:120] if str(e).strip() else ''}): the events "
            "must be the Messages API's, message_start first and message_stop last; record "
            "the run again, or fix the events by hand") from None
    return final.model_dump(mode="json", exclude_none=True)


def _check_events(lines: list[str]) -> None:
    """The lines of a recorded stream are server-sent events of the Messages API: `event:`
    and `data:` lines (the data JSON), blank lines between, message_start to message_stop."""
    events = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "event":
            events.append(value.strip())
        elif field == "data":
            try:
                json.loads(value)
            except ValueError:
                raise ValueError(f"line {number} of its stream has data that is not JSON: "
                                 f"{_short(line)}; record the run again, or fix that line "
                                 "by hand") from None
        else:
            raise ValueError(f"line {number} of its stream is not a server-sent event: "
                             f"{_short(line)} (each line is \"event: ...\" or \"data: "
                             "...\"); record the run again, or fix that line by hand")
    if not events or events[0] != "message_start" or "message_stop" not in events:
        raise ValueError(f"its stream has the events {_short(events)}, but a message's stream "
                         "goes from message_start to message_stop; record the run again")


def _short(value: Any) -> str:
    """`value` as a user can find it in the file: its JSON, cut at 60 characters."""
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
