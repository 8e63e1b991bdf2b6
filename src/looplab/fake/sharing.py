"""One history in memory, however many requests carried it.

Each request of an agent run repeats the messages of the one before and adds a few. The
fake keeps every request (`model.requests`); parsed afresh, each would hold its own copy
of the whole history, and a run's memory would grow with the square of its length. A new
request's leading messages that equal the previous request's are replaced by those very
objects, so requests share them: memory grows with the history, and work that depends on
a message alone (its token count) is done once per message, not once per request.
"""

from __future__ import annotations

from typing import Any


def share_history(body: dict[str, Any], previous: Any) -> dict[str, Any]:
    """`body`, its leading messages (and `tools`) replaced by `previous`'s equal ones."""
    if not isinstance(previous, dict):
        return body
    before, now = previous.get("messages"), body.get("messages")
    if isinstance(before, list) and isinstance(now, list):
        kept = 0
        if len(now) >= len(before) and before == now[: len(before)]:
            kept = len(before)  # the usual case, compared in one go
        else:
            for old, new in zip(before, now, strict=False):
                if not _same(old, new):
                    break
                kept += 1
        if kept:
            body["messages"] = before[:kept] + now[kept:]
    if "tools" in body and _same(previous.get("tools"), body["tools"]):
        body["tools"] = previous["tools"]
    return body


def _same(old: Any, new: Any) -> bool:
    """Equal as Python compares the parsed JSON (in C, at once). It takes `true` for `1`
    and `1.0` for `1`, which the API's own validation reads alike."""
    return old is new or old == new
