"""Every history rule: its id, severity, the API's 400 text and a hint; and how a
problem found in a history is reported (`Violation`, `Violations`, `HistoryError`).

For the rules the API is known to enforce, the text is the API's own, character for
character. The texts of `malformed`, `messages_empty`, `role_unknown`, `block_type_unknown`,
`tool_use_in_user`, `tool_result_in_assistant` and `is_error_not_bool` are written in the
API's style; nobody has captured them from the API. Warnings (the API accepts them, but they
teach the model a wrong habit) are in our words. The checking itself is in `rules.py`.

The API's texts stay English in every language; the hints and the warnings are looplab's
words to a learner, so they are `Message`s, shown in the learner's language.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Literal, NamedTuple

from ..errors import LooplabError
from ..i18n import N_, Message, _

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Violation:
    """One problem in a history, located the way the API writes paths."""

    rule: str
    severity: Severity
    path: str
    message: str
    hint: str


class Rule(NamedTuple):
    """One rule: its id, severity, the `message` it gives and the hint."""

    id: str
    severity: Severity
    text: str
    """The `message`, with `{at}` for the path and the rule's own fields in braces."""
    hint: str


RULES: tuple[Rule, ...] = (
    Rule(
        "malformed",
        "error",
        "{at}: {problem}",
        Message(
            "Give each message a role and a content, each block a type and its fields; append "
            "`response.content` as the SDK returned it."
        ),
    ),
    Rule(
        "messages_empty",
        "error",
        "messages: at least one message is required",
        Message("Start the history with one `user` message."),
    ),
    Rule(
        "role_unknown",
        "error",
        "{at}.role: Input should be 'user' or 'assistant'",
        Message('Use the role "user" or "assistant".'),
    ),
    Rule(
        "first_not_user",
        "error",
        'messages: first message must use the "user" role',
        Message("Start the history with the `user` message that states the task."),
    ),
    Rule(
        "content_empty",
        "error",
        "{at}: all messages must have non-empty content except for the optional final "
        "assistant message",
        Message("Put at least one content block in the message, or remove the message."),
    ),
    Rule(
        "text_empty",
        "error",
        "messages: text content blocks must be non-empty",
        Message("Drop the empty text block, or put some words in it."),
    ),
    Rule(
        "text_whitespace",
        "error",
        "messages: text content blocks must contain non-whitespace text",
        Message("Drop the blank text block, or put some words in it."),
    ),
    Rule(
        "block_type_unknown",
        "error",
        "{at}.type: unknown content block type '{kind}'",
        Message(
            "Check the spelling of `type`: the usual ones are `text`, `tool_use`, `tool_result`."
        ),
    ),
    Rule(
        "tool_use_in_user",
        "error",
        "{at}: `tool_use` blocks are only allowed in `assistant` messages",
        Message(
            "`tool_use` blocks come from the model: append `response.content` as the SDK returned "
            "it to an assistant message."
        ),
    ),
    Rule(
        "tool_result_in_assistant",
        "error",
        "{at}: `tool_result` blocks are only allowed in `user` messages",
        Message("Send `tool_result` blocks at the start of the next `user` message."),
    ),
    Rule(
        "is_error_not_bool",
        "error",
        "{at}.tool_result.is_error: Input should be a valid boolean",
        Message("Set `is_error` to True or False (a bool, not a string), or leave it out."),
    ),
    Rule(
        "tool_use_id_pattern",
        "error",
        "{at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
        Message("Keep the ids the API returned; use letters, digits, _ and - only."),
    ),
    Rule(
        "tool_use_id_duplicate",
        "error",
        "{at}: `tool_use` ids must be unique",
        Message("Give every `tool_use` its own id; keep the ids the API returned."),
    ),
    Rule(
        "tool_result_missing",
        "error",
        "{at}: `tool_use` ids were found without `tool_result` blocks immediately after: {ids}. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next "
        "message.",
        Message(
            "Start the next `user` message with one `tool_result` per id, all before any text."
        ),
    ),
    Rule(
        "tool_result_unexpected",
        "error",
        "{at}: unexpected `tool_use_id` found in `tool_result` blocks: {ids}. Each "
        "`tool_result` block must have a corresponding `tool_use` block in the previous "
        "message.",
        Message(
            "Before sending results, append `response.content` as the SDK returned it, `tool_use` "
            "blocks included."
        ),
    ),
    Rule(
        "prefill_trailing_whitespace",
        "error",
        "messages: final assistant content cannot end with trailing whitespace",
        Message("Strip the trailing whitespace off the last assistant text."),
    ),
    Rule(
        "tool_results_split",
        "warning",
        N_(
            "{at}: `tool_result` blocks for one assistant turn are split over several user "
            "messages; the API merges them, but the model learns to make fewer parallel calls"
        ),
        Message("Send all the results of one turn in a single `user` message."),
    ),
    Rule(
        "text_after_tool_result",
        "warning",
        N_(
            "{at}: text after `tool_result` blocks is accepted but can make the model answer with "
            "an empty `end_turn`"
        ),
        Message("Send only the `tool_result` blocks unless the text is really needed."),
    ),
    Rule(
        "same_role_in_a_row",
        "warning",
        N_('{at}: two "{role}" messages in a row; the API merges them into one turn'),
        Message("Merge the two messages, or add the missing turn between them."),
    ),
    Rule(
        "tool_not_in_tools",
        "warning",
        N_('{at}: `tool_use` calls "{name}", which is not in `tools`'),
        Message("Define the tool in `tools`, or the model reads calls to a tool it cannot use."),
    ),
)


# the hint for a role the API does not know, when a learner is likely to have meant it
ROLE_HINTS = {
    "system": Message("Pass instructions as the top-level `system=` argument, not as a message."),
    "tool": Message("There is no `tool` role: send `tool_result` blocks in a `user` message."),
}

SEVERITIES = {"error": N_("error"), "warning": N_("warning")}
"""A severity as a table or a line shows it: the field keeps the English word."""


def shown(v: Violation, column: str) -> str:
    """One field of `v` as the learner reads it (the severity in the learner's language)."""
    value = str(getattr(v, column))
    return _(SEVERITIES[value]) if column == "severity" and value in SEVERITIES else value


class Violations(list[Violation]):
    """What `check_history` returns: a list that shows itself as a table in a notebook."""

    def __str__(self) -> str:
        if not self:
            return _("no violations")
        return "\n".join(
            _("{severity} {rule} at {path}").format(severity=shown(v, "severity"), rule=v.rule,
                                                   path=v.path)
            + f"\n  {v.message}\n  " + _("hint: {hint}").format(hint=v.hint)
            for v in self
        )

    __repr__ = __str__

    def _repr_html_(self) -> str:
        if not self:
            return f"<p>{html.escape(_('no violations'))}</p>"
        columns = {"rule": _("rule"), "severity": _("severity"), "path": _("path"),
                   "message": _("message"), "hint": _("hint")}  # fmt: skip
        head = "".join(f"<th>{html.escape(name)}</th>" for name in columns.values())
        rows = "".join(
            "<tr>"
            + "".join(f"<td>{html.escape(shown(v, c))}</td>" for c in columns)
            + "</tr>"
            for v in self
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


class HistoryError(LooplabError, ValueError):
    """The history breaks rules the API enforces; `violations` holds each error."""

    def __init__(self, violations: list[Violation]) -> None:
        self.violations = violations
        lines = [_("the API would reject this history with a 400 ({n} error(s)):").format(
            n=len(violations))]
        lines += [f"- {v.message}\n  " + _("hint: {hint}").format(hint=v.hint)
                  for v in violations]
        super().__init__("\n".join(lines))
