"""The cassette: every HTTP exchange of a run, as a human-readable file of JSON lines.

    {"format": "looplab-cassette/2", "note": "...", "endpoint": "https://...", "live": true}
    {"request": {"method": "POST", "path": "/v1/messages", "body": {...}}, "response": {...}}
    {"request": {..., "extends": {"messages": 3, "keys": ["max_tokens", "model", "tools"]},
                 "body": {"messages": [the messages this request adds]}}, "response": {...}}

The first line says what the file is; each further line is one exchange, appended as it
happens (`journal.py`). A request that repeats the previous one and adds to it keeps
only what it adds: `extends` names how many of the previous request's messages, and which
of its other keys, it repeats. A request keeps its method, path, query and JSON body, never
its headers (they carry the key). A response keeps its status, a few harmless headers and
its body: parsed JSON, or `text` as a list of lines (server-sent events, or an error page
from a proxy). Files in the first format (one JSON object with an `exchanges` list) load too.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2

from ..errors import NoCassette, NotACassette
from .delta import rebuild, shorten
from .schema import check_exchange, check_header, check_old

FORMAT = "looplab-cassette/2"
OLD_FORMAT = "looplab-cassette/1"
KEPT_HEADERS = ("content-type", "request-id", "retry-after", "retry-after-ms", "x-should-retry")
"""The only response headers a cassette keeps."""
REDACTED = "[redacted]"


@dataclass
class Exchange:
    """One HTTP attempt: what was sent and what came back."""

    method: str
    path: str
    body: Any
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    response: Any = None
    """The parsed JSON body of the response, or None when it was not JSON."""
    text: list[str] | None = None
    """The response body as lines, when it was not JSON."""
    query: str = ""

    @property
    def response_text(self) -> str:
        """The response body as sent."""
        if self.text is not None:
            return "\n".join(self.text)
        return json.dumps(self.response, ensure_ascii=False)

    def to_json(self) -> dict[str, Any]:
        request: dict[str, Any] = {"method": self.method, "path": self.path}
        if self.query:
            request["query"] = self.query
        request["body"] = self.body
        response: dict[str, Any] = {"status": self.status, "headers": self.headers}
        if self.text is not None:
            response["text"] = self.text
        else:
            response["body"] = self.response
        return {"request": request, "response": response}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], body: Any = None) -> Exchange:
        """An exchange from its checked JSON form (`body`: the request body, when the
        caller has rebuilt it from a previous request)."""
        request, response = data["request"], data["response"]
        return cls(
            method=request["method"],
            path=request["path"],
            query=request.get("query", ""),
            body=request.get("body") if body is None else body,
            status=response["status"],
            headers=dict(response.get("headers") or {}),
            response=response.get("body"),
            text=response.get("text"),
        )

    @classmethod
    def from_http(cls, response: httpx2.Response) -> Exchange:
        """Capture a finished attempt (its body must have been read)."""
        request = response.request
        headers = {k: v for k, v in response.headers.items() if k.lower() in KEPT_HEADERS}
        answer = _json_or_none(response.content)
        return cls(
            method=request.method,
            path=request.url.path,
            query=request.url.query.decode("ascii") if request.url.query else "",
            body=_json_or_none(request.content),
            status=response.status_code,
            headers=headers,
            response=answer,
            text=response.text.split("\n") if answer is None else None,
        )


@dataclass
class Cassette:
    """The exchanges of one recorded run, in the order they happened."""

    exchanges: list[Exchange] = field(default_factory=list)
    note: str = ""
    endpoint: str = ""
    live: bool = True
    """False when the answers came from looplab's offline fake (or a replay)."""

    @property
    def requests(self) -> list[Any]:
        """The JSON bodies sent, one per exchange."""
        return [exchange.body for exchange in self.exchanges]

    @property
    def model(self) -> str | None:
        """The model named by the first request that named one."""
        for body in self.requests:
            if isinstance(body, dict) and isinstance(body.get("model"), str):
                return str(body["model"])
        return None

    def header(self) -> dict[str, Any]:
        """The file's first line."""
        return {"format": FORMAT, "note": self.note, "endpoint": self.endpoint,
                "live": self.live}

    def dumps(self) -> str:
        lines = [json.dumps(self.header(), ensure_ascii=False)]
        previous: Any = None
        for exchange in self.exchanges:
            lines.append(encode(exchange, previous))
            previous = exchange.body
        return "\n".join(lines) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the file (UTF-8), replacing it whole so a reader never sees half of it."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_whole(target, self.dumps())

    @classmethod
    def load(cls, path: str | Path) -> Cassette:
        """Read a cassette file; a file that is not one fails with a one-line reason."""
        source = Path(path)
        try:
            text = source.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise NoCassette(f"no cassette at {source}: record one first") from None
        except (OSError, UnicodeDecodeError) as err:
            raise NotACassette(f"{source} is not a cassette: it cannot be read "
                             f"({type(err).__name__}: {err})") from None
        if text.lstrip().startswith("{") and f'"{OLD_FORMAT}"' in text[:200]:
            return _load_old(source, text)
        return _read(source, text)


def encode(exchange: Exchange, previous: Any) -> str:
    """One exchange as its line, keeping only what its body adds to `previous`."""
    data = exchange.to_json()
    data["request"] = shorten(data["request"], previous)
    return json.dumps(data, ensure_ascii=False)


def _read(source: Path, text: str) -> Cassette:
    """A cassette from the lines of its file. A last line cut off half-way (the recording
    stopped while writing it) is left out."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1].strip() and not text.endswith("\n"):
        try:
            json.loads(lines[-1])
        except (ValueError, RecursionError):
            lines.pop()
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        raise NotACassette(f"{source} is not a cassette: it is empty")
    cassette = _header(source, _parse_json(source, numbered[0][1]))
    previous: Any = None
    for number, line in numbered[1:]:
        where = f"{source} is not a valid cassette: line {number}"
        data = _parse_json(f"{source} line {number}", line)
        check_exchange(where, data)
        exchange = Exchange.from_json(data, rebuild(where, data["request"], previous))
        cassette.exchanges.append(exchange)
        previous = exchange.body
    return cassette


def _header(source: Path, data: Any) -> Cassette:
    """An empty cassette from a checked first line."""
    check_header(source, data, FORMAT)
    return Cassette(note=data.get("note", ""), endpoint=data.get("endpoint", ""),
                    live=data.get("live", True))


def _load_old(source: Path, text: str) -> Cassette:
    """A cassette in the first format: one JSON object with every exchange in a list."""
    data = _parse_json(source, text)
    check_old(source, data, OLD_FORMAT)
    endpoint = data.get("endpoint", "")
    exchanges = []
    for number, item in enumerate(data.get("exchanges") or [], start=1):
        check_exchange(f"{source} is not a valid cassette: exchange {number}", item)
        exchanges.append(Exchange.from_json(item))
    # The first format did not say where answers came from: an endpoint that is no URL was
    # the offline fake standing in for one.
    return Cassette(exchanges, note=data.get("note", ""), endpoint=endpoint,
                    live=endpoint.startswith(("http://", "https://")))


def _parse_json(where: object, text: str) -> Any:
    """`text` as JSON, or a `ValueError` in one line naming `where`."""
    try:
        return json.loads(text)
    except RecursionError:
        raise NotACassette(f"{where} is not a cassette: its JSON is nested too deeply "
                         "to read") from None
    except ValueError as err:
        raise NotACassette(f"{where} is not a cassette: not valid JSON ({err})") from None


def write_whole(target: Path, text: str) -> None:
    """Replace `target` with `text` at once. The text goes first to a new file of a unique
    name (never one that exists, nor a link), which then takes `target`'s place."""
    handle, partial = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial",
                                       dir=target.parent)
    try:
        os.fchmod(handle, 0o644)  # as a file written plainly would be (mkstemp gives 0o600)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(partial, target)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def public_url(url: str) -> str:
    """`scheme://host[:port]/path` of `url`: never its user, password, query or fragment,
    which may hold a key. A URL that cannot be read shows as `(an unreadable URL)`."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "(an unreadable URL)"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    where = f"{host}:{port}" if port is not None else host
    return f"{parts.scheme}://{where}{parts.path}" if parts.scheme else "(an unreadable URL)"


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with each secret (as written inside a JSON string) replaced by `[redacted]`."""
    for secret in secrets:
        if secret:
            text = text.replace(json.dumps(secret)[1:-1], REDACTED)
    return text


def _json_or_none(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None
