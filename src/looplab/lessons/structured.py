"""Lesson 16's structured output, end to end: asked for, validated, repaired a capped number
of times, or failed clearly.

    got = forced_tool(client, messages, VERDICT_TOOL, repairs=2, model=..., max_tokens=...)
    got = schema_output(client, messages, VERDICT, model=..., max_tokens=...)
    got.value  # a dict that fits the schema; got.requests: what it took

Two ways to get JSON from the Messages API:

- **A forced tool call**: `tool_choice={"type": "tool", "name": ...}` makes the reply one
  call of that tool, and its `input` is the structure. Without `strict: true` on the tool,
  nothing guarantees the input fits the `input_schema`; so it is validated here, and an input
  that does not fit goes back as an `is_error` `tool_result` saying what is wrong, at most
  `repairs` times, then `NoValidOutput`.
- **The API's JSON-schema output mode**: `output_config={"format": {"type": "json_schema",
  "schema": ...}}` constrains the reply's text to the schema (the fake refuses a script that
  would not fit, as the API could not send it). A reply can still be cut (`max_tokens`) or
  refused (`refusal`), so the stop_reason is read and the JSON validated before it is used;
  there is no `tool_use` to answer, so a failure here is not repaired but reported.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..errors import LooplabError
from ..i18n import _
from ..running.problems import schema_problem as worded_problem
from ..schemas import best_match, validator

__all__ = ["VERDICT", "VERDICT_TOOL", "NoValidOutput", "Structured", "forced_tool",
           "schema_output", "schema_problem"]

VERDICT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["PASS", "FAIL"]},
        "reason": {"type": "string", "minLength": 1},
    },
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}
VERDICT_TOOL: dict[str, Any] = {
    "name": "record_verdict",
    "description": "Record the verdict on the answer: PASS if it says the same as the "
                   "reference, else FAIL, and the reason in one sentence.",
    "input_schema": VERDICT,
}


class NoValidOutput(LooplabError):
    """No output that fits the schema came back (after the repairs allowed)."""


@dataclass
class Structured:
    """A value that fits its schema, and the requests it took (1: no repair needed)."""

    value: dict[str, Any]
    requests: int


def schema_problem(value: Any, schema: dict[str, Any]) -> str | None:
    """What is wrong with `value` for `schema`, in one line (where and why), or None."""
    error = best_match(validator(schema).iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or _("(the whole value)")
    return f"{where}: {worded_problem(error)}"


def forced_tool(client: Any, messages: list[dict[str, Any]], tool: dict[str, Any], *,
                repairs: int = 2, **create: Any) -> Structured:
    """The `input` of a forced call of `tool`, validated against its `input_schema`; an input
    that does not fit is sent back as an `is_error` tool_result, at most `repairs` times."""
    if not isinstance(repairs, int) or repairs < 0:
        raise ValueError(f"repairs={repairs!r}: use a whole number >= 0")
    history = list(messages)
    choice = {"type": "tool", "name": tool["name"]}
    why = ""
    for number in range(1, repairs + 2):
        reply = client.messages.create(messages=history, tools=[tool], tool_choice=choice,
                                       **create)
        uses = [b for b in reply.content if b.type == "tool_use" and b.name == tool["name"]]
        if not uses:  # cut by max_tokens, or refused: nothing to repair
            raise NoValidOutput(_("no call of {name} came back (stop_reason {stop}): nothing "
                                  "to validate").format(name=tool["name"],
                                                        stop=reply.stop_reason))
        problem = schema_problem(uses[0].input, tool["input_schema"])
        if problem is None:
            return Structured(dict(uses[0].input), number)
        why = problem
        history += [{"role": "assistant", "content": reply.content},
                    {"role": "user", "content": [{
                        "type": "tool_result", "tool_use_id": uses[0].id, "is_error": True,
                        "content": _("the input does not fit the schema: {problem}. Call "
                                     "{name} again with input that fits.").format(
                                         problem=problem, name=tool["name"])}]}]  # fmt: skip
    raise NoValidOutput(_("no valid {name} after {repairs} repairs ({requests} requests); the "
                          "last input: {why}").format(name=tool["name"], repairs=repairs,
                                                      requests=repairs + 1, why=why))


def schema_output(client: Any, messages: list[dict[str, Any]], schema: dict[str, Any],
                  **create: Any) -> Structured:
    """The reply's text, asked for in the API's JSON-schema output mode, parsed and
    validated; a cut or refused reply, or JSON that does not fit, raises `NoValidOutput`."""
    reply = client.messages.create(
        messages=messages, output_config={"format": {"type": "json_schema", "schema": schema}},
        **create)
    if reply.stop_reason != "end_turn":
        raise NoValidOutput(_("the reply stopped with {stop}, not end_turn: its JSON may be "
                              "cut or missing").format(stop=reply.stop_reason))
    text = "".join(b.text for b in reply.content if b.type == "text")
    try:
        value = json.loads(text)
    except ValueError as error:
        raise NoValidOutput(_("the reply is not JSON: {error}").format(error=error)) from None
    problem = schema_problem(value, schema)
    if problem is not None:
        raise NoValidOutput(_("the reply does not fit the schema: {problem}").format(
            problem=problem))
    return Structured(value, 1)
