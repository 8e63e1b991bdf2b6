"""A request kept as what it adds to the previous one.

Every request of an agent run repeats the whole history before it and adds a message or
two. A request whose body starts with the previous request's messages is written as
`"extends": {"messages": N, "keys": [...]}` (the previous body's first N messages and the
listed keys, unchanged) plus a `body` of what differs, so a cassette grows with the run,
not with the square of it.
"""

from __future__ import annotations

from typing import Any

from ..errors import NotACassette


def shorten(request: dict[str, Any], previous: Any) -> dict[str, Any]:
    """A request's JSON form (`method`, `path`, `body`...), keeping only what its body
    adds to `previous`."""
    body = request.get("body")
    shared = _shared(previous, body)
    if shared is None or not isinstance(body, dict):
        return request
    kept, keys = shared
    rest = {k: v for k, v in body.items() if k not in keys and k != "messages"}
    shorter = {k: v for k, v in request.items() if k != "body"}
    shorter["extends"] = {"messages": kept, "keys": keys}
    shorter["body"] = {**rest, "messages": body["messages"][kept:]}
    return shorter


def _shared(previous: Any, body: Any) -> tuple[int, list[str]] | None:
    """How many leading messages, and which other keys, `body` has as `previous` had them."""
    if not (isinstance(previous, dict) and isinstance(body, dict)):
        return None
    before, now = previous.get("messages"), body.get("messages")
    if not (isinstance(before, list) and isinstance(now, list)):
        return None
    kept = 0
    for old, new in zip(before, now, strict=False):
        if old != new:
            break
        kept += 1
    if kept == 0:
        return None
    keys = sorted(k for k, v in previous.items()
                  if k != "messages" and k in body and body[k] == v)
    return kept, keys


def rebuild(where: str, request: dict[str, Any], previous: Any) -> Any:
    """The whole body of `request`, rebuilt from `previous` when it extends it."""
    extends = request.get("extends")
    if extends is None:
        return request.get("body")
    kept, keys = extends["messages"], extends["keys"]
    before = previous.get("messages") if isinstance(previous, dict) else None
    if not isinstance(before, list) or len(before) < kept or any(k not in previous for k in keys):
        raise NotACassette(f"{where}: it extends the previous request, which does not have "
                         f"{kept} messages and the keys {', '.join(keys) or '(none)'}")
    body = {k: previous[k] for k in keys}
    body.update(request["body"])
    body["messages"] = before[:kept] + request["body"]["messages"]
    return body


