"""Answer the `tool_use` blocks a stopped run left without a `tool_result`.

A run that stops right after the model asked for tools (the repeat gate in `stop` mode,
a reply cut off at `max_tokens`, an API error) ends with an assistant turn whose calls
were never answered. The API rejects the next request with a 400 ("tool_use ids were found
without tool_result blocks immediately after"). `close_dangling` answers each such call
with an `is_error` result saying it was not run, so the history can be sent again.

It reads a history the way `check_history` does: messages and blocks may be dicts or SDK
objects (`response.content`'s blocks), consecutive messages of one role form one turn,
and a message or block the API would reject as malformed is left as it is.
"""

from __future__ import annotations

import copy
from typing import Any

# the one reading of SDK objects (history/blocks.py), so both functions see the same history
from ..i18n import N_, _
from .blocks import plain as _plain
from .rules import check_history

DEFAULT_REASON = N_("the run stopped before this call was made")


def not_run(tool_use_id: str, reason: str) -> dict[str, Any]:
    """The `tool_result` for a call that was never made, in the learner's language (a
    reason the catalog knows is translated; any other is sent as it is)."""
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": _("not run: {reason}").format(reason=_(reason)),
        "is_error": True,
    }


def _role(message: Any) -> str | None:
    """"user" or "assistant", or None for a message `check_history` cannot read."""
    m = _plain(message)
    if not isinstance(m, dict) or not isinstance(m.get("content"), (str, list, tuple)):
        return None
    role = m.get("role")
    return role if role in ("user", "assistant") else None


def _blocks(message: Any) -> list[Any]:
    """The content blocks of a readable message (a string is one text block)."""
    content = _plain(message)["content"]
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content)


def _call_id(block: Any) -> str | None:
    """The id of a well-formed `tool_use` block, else None."""
    b = _plain(block)
    ok = (isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str)
          and isinstance(b.get("name"), str) and isinstance(b.get("input"), dict))
    return b["id"] if ok else None


def _result_id(block: Any) -> str | None:
    """The `tool_use_id` of a well-formed `tool_result` block, else None."""
    b = _plain(block)
    ok = isinstance(b, dict) and b.get("type") == "tool_result"
    return b["tool_use_id"] if ok and isinstance(b.get("tool_use_id"), str) else None


def _dangles(messages: list[Any], first: int, last: int) -> bool:
    """Whether `check_history` finds a call of messages[first..last] unanswered."""
    return any(v.rule == "tool_result_missing" and first <= int(v.path.split(".")[1]) <= last
               for v in check_history(messages))


def close_dangling(messages: Any, reason: str = DEFAULT_REASON) -> list[Any]:
    """A copy of `messages` in which every `tool_use` of the last assistant turn is answered.

    The last assistant turn is the last run of assistant messages (two in a row count as
    one turn, as the API merges them). Missing results go at the start of the first user
    message after it (created if the history ends with that turn), in call order; results
    already given further on in that turn are moved there too. Results are never invented
    for earlier turns: a call skipped in the middle of a history stays an error.
    Idempotent: a history with nothing dangling comes back equal. The input is not changed.

    Raises `TypeError` unless `messages` is a list (or tuple) of messages.
    """
    if not isinstance(messages, (list, tuple)):
        raise TypeError(f"close_dangling needs the messages list (e.g. result.messages), got "
                        f"{type(messages).__name__}")
    out = list(messages)
    roles = [_role(m) for m in out]
    if "assistant" not in roles:
        return out
    last = len(roles) - 1 - roles[::-1].index("assistant")
    first = last
    while first > 0 and roles[first - 1] != "user":
        first -= 1
    calls = [i for n in range(first, last + 1) if roles[n] == "assistant"
             for i in map(_call_id, _blocks(out[n])) if i is not None]
    calls = list(dict.fromkeys(calls))
    reply = [n for n in range(last + 1, len(out)) if roles[n] == "user"]
    if not calls or not _dangles(out, first, last):
        return out
    if not reply:
        if last == len(out) - 1 and not _blocks(out[last]):
            out.pop()  # an empty final assistant message may only stand last
        out.append({"role": "user", "content": []})
        reply = [len(out) - 1]
    emptied = _answer(out, reply, calls, reason)
    return [m for n, m in enumerate(out) if n not in emptied]

# looplab's own reference, kept where a graded kernel drops the public name (grading/hiding.py)
_close_dangling = close_dangling


def _answer(out: list[Any], reply: list[int], calls: list[str], reason: str) -> set[int]:
    """Put one result per call, in call order, at the start of `out[reply[0]]`.

    Returns the later reply messages left empty by moving their results (to be dropped).
    """
    found: dict[str, Any] = {}
    emptied: set[int] = set()
    for n in reply:
        kept = []
        for block in _blocks(out[n]):
            result = _result_id(block)
            if result in calls and result not in found:
                found[result] = block
            else:
                kept.append(block)
        if len(kept) != len(_blocks(out[n])) or n == reply[0]:
            message = copy.copy(_plain(out[n]))
            message["content"] = kept
            out[n] = message
            if not kept and n != reply[0]:
                emptied.add(n)
    head = out[reply[0]]
    extra = [b for b in head["content"] if _result_id(b) is not None]
    rest = [b for b in head["content"] if _result_id(b) is None]
    head["content"] = [found.get(i) or not_run(i, reason) for i in calls] + extra + rest
    return emptied
