"""The history rules: what the Messages API checks in `messages` before any model runs.

`check_history` finds every problem at once and never raises. `first_error` is the one the
API would answer with (HTTP 400, `invalid_request_error`). `assert_valid` raises.

`RULES` (in `rule_texts.py`) holds every rule with its text and says which texts are
the API's own.

The API merges consecutive messages of one role into one turn, so the `tool_use` /
`tool_result` pairing is checked on merged turns. Mid-conversation `"system"` messages are
out of scope: they count as an unknown role.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..i18n import Message
from .blocks import plain
from .texts import ROLE_HINTS, RULES, HistoryError, Rule, Severity, Violation, Violations

__all__ = [
    "RULES", "SHAPE_RULES", "HistoryError", "Rule", "Severity", "Violation", "Violations",
    "assert_valid", "check_history", "first_error",
]

_RULE = {r.id: r for r in RULES}

# The SDK's ContentBlockParam union, plus the beta's `compaction` and `fallback` blocks.
_BLOCK_TYPES = frozenset(
    "text image document search_result thinking redacted_thinking tool_use tool_result"
    " server_tool_use web_search_tool_result web_fetch_tool_result code_execution_tool_result"
    " bash_code_execution_tool_result text_editor_code_execution_tool_result"
    " tool_search_tool_result container_upload compaction fallback".split()
)
# Fields a block must carry: (field, Python type, the type's name in the API's text).
_FIELDS: dict[str, tuple[tuple[str, type, str], ...]] = {
    "text": (("text", str, "string"),),
    "tool_use": (("id", str, "string"), ("name", str, "string"), ("input", dict, "dictionary")),
    "tool_result": (("tool_use_id", str, "string"),),
}
_ID = re.compile(r"[a-zA-Z0-9_-]+")

_Block = tuple[int, int, dict[str, Any]]  # (n, m, block): messages[n].content[m]
_Message = tuple[int, str, list[_Block]]  # (n, role, blocks), only well-formed blocks kept


class _Report:
    def __init__(self) -> None:
        self._found: list[tuple[int, int, Violation]] = []

    def add(self, rule: str, n: int, m: int = -1, *, hint: str = "", **fields: str) -> None:
        """Record `rule` at messages[n].content[m] (n = -1: the list; m = -1: the message).

        `fields` fill the rule's text; `at` defaults to the path."""
        path = "messages" if n < 0 else f"messages.{n}" if m < 0 else f"messages.{n}.content.{m}"
        r = _RULE[rule]
        values = {"at": path, **fields}
        # the API's texts stay English; a warning is in looplab's words, in the learner's language
        message = Message(r.text, **values) if r.severity == "warning" else r.text.format(**values)
        self._found.append((n, m, Violation(rule, r.severity, path, message, hint or r.hint)))

    def violations(self) -> Violations:
        return Violations(v for _, _, v in sorted(self._found, key=lambda f: (f[0], f[1])))


def _read_block(n: int, m: int, role: str, raw: Any, report: _Report) -> dict[str, Any] | None:
    """Check one content block on its own; return it if later rules should see it."""
    block = plain(raw)
    if not isinstance(block, dict):
        report.add("malformed", n, m, problem="Input should be a valid dictionary")
        return None
    kind = block.get("type")
    if not isinstance(kind, str):
        report.add("malformed", n, m, at=f"messages.{n}.content.{m}.type",
                   problem="Field required")
        return None
    if kind not in _BLOCK_TYPES:
        report.add("block_type_unknown", n, m, kind=kind)
        return None
    for field, python_type, name in _FIELDS.get(kind, ()):
        if not isinstance(block.get(field), python_type):
            problem = "Field required" if field not in block else f"Input should be a valid {name}"
            at = f"messages.{n}.content.{m}.{kind}.{field}"
            report.add("malformed", n, m, at=at, problem=problem)
            return None
    if kind == "tool_use" and role != "assistant":
        report.add("tool_use_in_user", n, m)
        return None
    if kind == "tool_result" and role != "user":
        report.add("tool_result_in_assistant", n, m)
        return None
    if kind == "tool_result" and not isinstance(block.get("is_error", False), (bool, type(None))):
        report.add("is_error_not_bool", n, m)
    if kind == "text" and not block["text"].strip():
        report.add("text_whitespace" if block["text"] else "text_empty", n, m)
    return block


def _read_message(n: int, raw: Any, last: bool, report: _Report) -> _Message | None:
    """Check one message's shape and its blocks; None if later rules should skip it."""
    message = plain(raw)
    if not isinstance(message, dict):
        report.add("malformed", n, problem="Input should be a valid dictionary")
        return None
    for field in ("role", "content"):
        if field not in message:
            report.add("malformed", n, at=f"messages.{n}.{field}", problem="Field required")
            return None
    role, content = message["role"], message["content"]
    if not isinstance(role, str) or role not in ("user", "assistant"):
        hint = ROLE_HINTS.get(role, "") if isinstance(role, str) else ""
        report.add("role_unknown", n, hint=hint)
        return None
    if isinstance(content, str):  # shorthand for one text block
        blocks: Any = [{"type": "text", "text": content}] if content else []
    elif isinstance(content, (list, tuple)):
        blocks = content
    else:
        report.add("malformed", n, at=f"messages.{n}.content", problem="Input should be a valid "
                   "list")
        return None
    if not blocks and not (last and role == "assistant"):
        report.add("content_empty", n)
    kept = ((m, _read_block(n, m, role, b, report)) for m, b in enumerate(blocks))
    return n, role, [(n, m, b) for m, b in kept if b is not None]


def _check_order(before: _Message | None, message: _Message, report: _Report) -> None:
    """first_not_user, same_role_in_a_row."""
    n, role, blocks = message
    # A compacted history may start with the assistant's compaction block (SDK docstring)
    if n == 0 and role == "assistant" and not (blocks and blocks[0][2]["type"] == "compaction"):
        report.add("first_not_user", 0)
    # A user message that starts with results is judged by the pairing rules instead.
    if before and before[1] == role and not (blocks and blocks[0][2]["type"] == "tool_result"):
        report.add("same_role_in_a_row", n, role=role)


def _check_tool_uses(message: _Message, seen: set[str], names: set[str] | None,
                     report: _Report) -> None:
    """tool_use_id_pattern, tool_use_id_duplicate (`seen`: ids so far), tool_not_in_tools."""
    for n, m, block in message[2]:
        if block["type"] != "tool_use":
            continue
        if not _ID.fullmatch(block["id"]):
            report.add("tool_use_id_pattern", n, m)
        if block["id"] in seen:
            report.add("tool_use_id_duplicate", n, m)
        seen.add(block["id"])
        if names is not None and block["name"] not in names:
            report.add("tool_not_in_tools", n, m, name=block["name"])


def _check_prefill(message: _Message, last: int, report: _Report) -> None:
    """prefill_trailing_whitespace: a final assistant message is continued as it is."""
    n, role, blocks = message
    if n != last or role != "assistant" or not blocks or blocks[-1][2]["type"] != "text":
        return
    text = blocks[-1][2]["text"]
    if text.strip() and text != text.rstrip():  # blank text is text_whitespace's business
        report.add("prefill_trailing_whitespace", n, blocks[-1][1])


def _messages(messages: list[Any] | tuple[Any, ...], names: set[str] | None,
              report: _Report) -> Iterator[_Message]:
    """Read the messages one by one, apply the per-message rules, yield the usable ones.

    A generator, so that only the current turn is held in memory: holding every block at
    once makes Python's garbage collector rescan the history again and again, and 100k
    messages then cost far more than 10 times 10k. The prefill rule runs after the last one.
    """
    before: _Message | None = None
    seen: set[str] = set()
    for n, raw in enumerate(messages):
        message = _read_message(n, raw, n == len(messages) - 1, report)
        if message is None:
            continue
        _check_order(before, message, report)
        _check_tool_uses(message, seen, names, report)
        before = message
        yield message
    if before is not None:
        _check_prefill(before, len(messages) - 1, report)


def _turns(messages: Iterable[_Message]) -> Iterator[tuple[str, list[_Block]]]:
    """Consecutive messages of one role merged into one turn, as the API does."""
    role = ""
    turn: list[_Block] = []
    for _, next_role, blocks in messages:
        if next_role != role and role:
            yield role, turn
            turn = []
        role = next_role
        turn.extend(blocks)
    if role:
        yield role, turn


def _tool_result_missing(turn: list[_Block], reply: list[_Block], report: _Report) -> None:
    """Rule 1, for one assistant turn and the user turn after it (empty if none).

    The API's text names one message, `messages.N`. We name the assistant message holding
    the first unanswered `tool_use`. Whether the API names that message or the one after it
    is not verified against the live API; this is the one place to change it.
    """
    answered: set[str] = set()
    for _, _, block in reply:  # only the results at the very start of the reply count
        if block["type"] != "tool_result":
            break
        answered.add(block["tool_use_id"])
    missing = [(n, b["id"]) for n, _, b in turn if b["type"] == "tool_use"]
    missing = [(n, i) for n, i in missing if i not in answered]
    if missing:
        ids = ", ".join(dict.fromkeys(i for _, i in missing))
        report.add("tool_result_missing", missing[0][0], ids=ids)


def _check_results(turn: list[_Block], asked: set[str], report: _Report) -> None:
    """tool_result_unexpected, tool_results_split, text_after_tool_result for one user turn."""
    results = [(n, m, b["tool_use_id"]) for n, m, b in turn if b["type"] == "tool_result"]
    if not results:
        return
    unexpected = [r for r in results if r[2] not in asked]
    if unexpected:
        ids = ", ".join(dict.fromkeys(i for _, _, i in unexpected))
        report.add("tool_result_unexpected", unexpected[0][0], unexpected[0][1], ids=ids)
    holders = list(dict.fromkeys(n for n, _, _ in results))
    if len(holders) > 1:
        report.add("tool_results_split", holders[1])
    first = next(k for k, (_, _, b) in enumerate(turn) if b["type"] == "tool_result")
    late = [(n, m) for n, m, b in turn[first:] if b["type"] == "text"]
    if late:
        report.add("text_after_tool_result", *late[0])


def _check_pairing(turns: Iterable[tuple[str, list[_Block]]], report: _Report) -> None:
    """The `tool_use` / `tool_result` rules, turn by turn (turns alternate roles)."""
    asking: list[_Block] = []  # the assistant turn waiting for its results
    for role, blocks in turns:
        if role == "assistant":
            asking = blocks
            continue
        _tool_result_missing(asking, blocks, report)
        _check_results(blocks, {b["id"] for _, _, b in asking if b["type"] == "tool_use"},
                       report)
        asking = []
    _tool_result_missing(asking, [], report)  # a final assistant turn gets no results


def _tool_names(tools: Any) -> set[str] | None:
    """The names in a `tools` list of dicts, SDK params or objects with a `name`."""
    if not isinstance(tools, (list, tuple)):
        return None
    names = (t.get("name") if isinstance(t, dict) else getattr(t, "name", None)
             for t in map(plain, tools))
    return {name for name in names if isinstance(name, str)}


def check_history(messages: Any, *, tools: Any = None) -> Violations:
    """Every problem in `messages`, in message order. Never raises.

    `tools` (the request's tool list) is optional; with it, calls to tools it does not
    define are reported as warnings.
    """
    report = _Report()
    messages = plain(messages)
    if not isinstance(messages, (list, tuple)):
        report.add("malformed", -1, problem="Input should be a valid list")
    elif not messages:
        report.add("messages_empty", -1)
    else:
        _check_pairing(_turns(_messages(messages, _tool_names(tools), report)), report)
    return report.violations()


# Errors in the request's *shape* (a role, block type or field the schema does not allow).
# The API validates the schema before it reads the conversation, so one of these is
# reported before any pairing error, wherever it stands. (An assumption: the order in which
# the live API reports two different errors is not documented.)
SHAPE_RULES = frozenset(
    {"malformed", "role_unknown", "block_type_unknown", "is_error_not_bool", "tool_use_id_pattern"}
)


def first_error(messages: Any, *, tools: Any = None) -> Violation | None:
    """The error the API would answer with, or None: the first shape error if there is
    one (see `SHAPE_RULES`), otherwise the first error in message order."""
    errors = [v for v in check_history(messages, tools=tools) if v.severity == "error"]
    return next((v for v in errors if v.rule in SHAPE_RULES), errors[0] if errors else None)


def assert_valid(messages: Any, *, tools: Any = None) -> None:
    """Raise `HistoryError` listing every error with its hint; warnings pass."""
    errors = [v for v in check_history(messages, tools=tools) if v.severity == "error"]
    if errors:
        raise HistoryError(errors)
