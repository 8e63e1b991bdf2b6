"""`record(client, path)`: the same client, writing every exchange to a cassette."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
from anthropic import APIRequest, APIResponse, CallNext, Middleware

from ..errors import LooplabError, WouldReplace
from ..fake.client import FAKE_API_KEY
from .cassette import Cassette, Exchange, public_url, redact
from .journal import Journal
from .player import REPLAY_API_KEY
from .scrub import api_path, url_secrets

OFFLINE_KEYS = (FAKE_API_KEY, REPLAY_API_KEY)
"""The keys of looplab's own offline clients: a recording of one is not a live recording."""


class RecordingFailed(LooplabError, anthropic.APIError):
    """The cassette could not be written (e.g. the disk is full). An `anthropic.APIError`,
    so `run_agent` stops with status `api_error` and keeps its history, instead of raising;
    the SDK neither wraps nor retries it."""


class Recorder(Middleware):
    """SDK middleware that appends each HTTP attempt to the cassette at `path`.

    The SDK runs middleware once per attempt, inside its retry loop, so a 529 that was
    retried is two exchanges, as on the wire. A streamed body is read whole before the SDK
    parses it: recorded streams arrive at once.
    """

    def __init__(self, journal: Journal, secrets: tuple[str, ...], base_url: str = "") -> None:
        self.journal = journal
        self.secrets = secrets
        self.base_url = base_url

    @property
    def path(self) -> Path:
        return self.journal.path

    def handle(self, request: APIRequest, call_next: CallNext) -> APIResponse[Any]:
        response = call_next(request)
        http = response.http_response
        http.read()
        try:
            exchange = Exchange.from_http(http)
            # the API's path and query only: never what the base URL carried
            exchange.path, exchange.query = api_path(exchange.path, exchange.query,
                                                     self.base_url)
            self.journal.append(exchange, self.secrets)
        except OSError as err:
            raise RecordingFailed(
                f"the cassette {self.path} could not be written ({type(err).__name__}: "
                f"{err.strerror or err}); this answer is not in it, so the run stops here",
                http.request, body=None,
            ) from None
        return response


def record(
    client: anthropic.Anthropic,
    path: str | Path,
    *,
    note: str = "",
    endpoint: str | None = None,
    overwrite: bool = False,
) -> anthropic.Anthropic:
    """A copy of `client` that saves every request and response to the cassette `path`.

        live = looplab.record(looplab.client(), "runs/login.json")
        looplab.run_agent(live, TASK, tools=demo_tools())
        again = looplab.replay("runs/login.json")      # offline, same answers

    The file starts with one line and gains one line per exchange as it happens, so it is
    complete even if the run stops with an error. Keys, tokens and request headers are
    never written. A file that exists is never replaced unless `overwrite=True`, and a
    live recording never by a recording of the offline fake. `note` is kept in the file for
    its readers; `endpoint` names where the answers came from (default: the client's base
    URL, without any user, password or query it holds). Whatever the base URL carries (a
    user and password, a path, a query) is never written: each request keeps only the API's
    path after it and the query parameters the API defines.
    """
    target = Path(path)
    live = client.api_key not in OFFLINE_KEYS
    _check_target(target, live, overwrite)
    base_url = str(client.base_url)
    secrets = (*(s for s in (client.api_key, client.auth_token) if s), *url_secrets(base_url))
    cassette = Cassette(note=note, endpoint=redact(endpoint or public_url(base_url), secrets),
                        live=live)
    journal = Journal(target, cassette, replace=overwrite)
    return client.with_middleware(Recorder(journal, secrets, base_url))


def _check_target(target: Path, live: bool, overwrite: bool) -> None:
    """Raise `FileExistsError` if recording to `target` would lose a file."""
    if target.is_dir():
        raise WouldReplace(f"{target} is a folder: name a file to record to")
    if not (target.exists() or target.is_symlink()):
        return
    if not overwrite:
        raise WouldReplace(
            f"{target} exists: record(..., overwrite=True) replaces it, or name another file")
    if live:
        return
    try:
        held_live = Cassette.load(target).live
    except ValueError:
        return  # not a cassette: overwrite=True says it may go
    if held_live:
        raise WouldReplace(
            f"{target} holds a live recording; looplab never replaces one with a recording "
            "of the offline fake. Name another file, or move this one away first.")
