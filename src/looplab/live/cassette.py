"""The cassette: every HTTP exchange of a run, as a human-readable JSON file.

    {"format": "looplab-cassette/1", "note": "...", "endpoint": "https://api.anthropic.com/",
     "exchanges": [{"request": {"method": "POST", "path": "/v1/messages", "body": {...}},
                    "response": {"status": 200, "headers": {...}, "body": {...}}}]}

A request keeps its method, path, query and JSON body, never its headers (they carry the
key). A response keeps its status, a few harmless headers and its body: parsed JSON, or
`text` as a list of lines (server-sent events, or an error page from a proxy).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

FORMAT = "looplab-cassette/1"
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
    def from_json(cls, data: Mapping[str, Any]) -> Exchange:
        request, response = data["request"], data["response"]
        return cls(
            method=str(request["method"]),
            path=str(request["path"]),
            query=str(request.get("query", "")),
            body=request.get("body"),
            status=int(response["status"]),
            headers={str(k): str(v) for k, v in dict(response.get("headers") or {}).items()},
            response=response.get("body"),
            text=None if response.get("text") is None else [str(x) for x in response["text"]],
        )

    @classmethod
    def from_http(cls, response: httpx2.Response, secrets: Iterable[str] = ()) -> Exchange:
        """Capture a finished attempt (its body must have been read)."""
        request = response.request
        body = _json_or_none(request.content)
        headers = {k: v for k, v in response.headers.items() if k.lower() in KEPT_HEADERS}
        answer = _json_or_none(response.content)
        exchange = cls(
            method=request.method,
            path=request.url.path,
            query=request.url.query.decode("ascii") if request.url.query else "",
            body=body,
            status=response.status_code,
            headers=headers,
            response=answer,
            text=response.text.split("\n") if answer is None else None,
        )
        return _scrub(exchange, [s for s in secrets if s])


@dataclass
class Cassette:
    """The exchanges of one recorded run, in the order they happened."""

    exchanges: list[Exchange] = field(default_factory=list)
    note: str = ""
    endpoint: str = ""

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

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "note": self.note,
            "endpoint": self.endpoint,
            "exchanges": [exchange.to_json() for exchange in self.exchanges],
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, indent=2) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the file (UTF-8), replacing it whole so a reader never sees half of it."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        partial.write_text(self.dumps(), encoding="utf-8")
        partial.replace(target)

    @classmethod
    def load(cls, path: str | Path) -> Cassette:
        """Read a cassette file; a file that is not one fails with a one-line reason."""
        source = Path(path)
        try:
            data = json.loads(source.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise FileNotFoundError(f"no cassette at {source}: record one first") from None
        except ValueError as err:
            raise ValueError(f"{source} is not a cassette: not valid JSON ({err})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{source} is not a cassette: its 'format' is not {FORMAT!r}")
        return cls(
            exchanges=[Exchange.from_json(item) for item in data.get("exchanges") or []],
            note=str(data.get("note", "")),
            endpoint=str(data.get("endpoint", "")),
        )


def _json_or_none(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _scrub(exchange: Exchange, secrets: list[str]) -> Exchange:
    """Replace any secret that turns up in a body (it never should) by `[redacted]`."""
    if not secrets:
        return exchange
    data = json.dumps(exchange.to_json(), ensure_ascii=False)
    if not any(secret in data for secret in secrets):
        return exchange
    for secret in secrets:
        data = data.replace(json.dumps(secret)[1:-1], REDACTED)
    return Exchange.from_json(json.loads(data))
