"""`record(client, path)`: the same client, writing every exchange to a cassette."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
from anthropic import APIRequest, APIResponse, CallNext, Middleware

from .cassette import Cassette, Exchange


class Recorder(Middleware):
    """SDK middleware that appends each HTTP attempt to `cassette` and saves it to `path`.

    The SDK runs middleware once per attempt, inside its retry loop, so a 529 that was
    retried is two exchanges, as on the wire. A streamed body is read whole before the SDK
    parses it: recorded streams arrive at once.
    """

    def __init__(self, path: str | Path, cassette: Cassette, secrets: tuple[str, ...]) -> None:
        self.path = Path(path)
        self.cassette = cassette
        self.secrets = secrets

    def handle(self, request: APIRequest, call_next: CallNext) -> APIResponse[Any]:
        response = call_next(request)
        response.http_response.read()
        self.cassette.exchanges.append(Exchange.from_http(response.http_response, self.secrets))
        self.cassette.save(self.path)
        return response


def record(
    client: anthropic.Anthropic,
    path: str | Path,
    *,
    note: str = "",
    endpoint: str | None = None,
) -> anthropic.Anthropic:
    """A copy of `client` that saves every request and response to the cassette `path`.

        live = looplab.record(looplab.client(), "runs/login.json")
        looplab.run_agent(live, TASK, tools=demo_tools())
        again = looplab.replay("runs/login.json")      # offline, same answers

    The file starts empty and is rewritten after every exchange, so it is complete even
    if the run stops with an error. Keys, tokens and request headers are never written.
    `note` is kept in the file for its readers; `endpoint` names where the answers came
    from (default: the client's base URL).
    """
    cassette = Cassette(note=note, endpoint=endpoint or str(client.base_url))
    cassette.save(path)
    secrets = tuple(s for s in (client.api_key, client.auth_token) if s)
    return client.with_middleware(Recorder(path, cassette, secrets))
