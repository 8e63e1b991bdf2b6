"""Is a scripted reply something the live API could send for this request?

The live model only calls tools it is offered, follows `tool_choice`, and answers a
structured-output request with JSON that fits the schema. A script that breaks one of
these would teach behaviour the live API never shows, so it fails with a `ScriptError`
naming the step and what the request wanted.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Mapping
from typing import Any

import pydantic
from anthropic.types.beta.beta_memory_tool_20250818_command import (
    BetaMemoryTool20250818Command,
)

from ..i18n import _
from ..schemas import best_match, validator
from .models import ScriptError
from .search import hidden_tools, loaded
from .steps import Reply
from .validate import tool_names

_CALLS = ("tool_use", "server_tool_use")


def check_reply(step: Reply, body: Mapping[str, Any], label: str, number: int) -> None:
    """Raise `ScriptError` unless `step` fits the request `body` (request `number`).

    `label` names the step in the message (e.g. "script step 3").
    """
    names = tool_names(body)
    for block in step.content:
        if block.get("type") in _CALLS and block.get("name") not in names:
            raise ScriptError(
                f"the script makes the model call the tool {block.get('name')!r}, but request "
                f"{number} offers no such tool (tools: {', '.join(names) or 'none'}). Fix the "
                "tool name in the script, or pass that tool in `tools=`."
            )
    _check_loaded(step, body, label, number)
    _check_memory(step, body, label, number)
    _check_strict(step, body, label, number)
    if step.stop_reason != "refusal":
        _check_tool_choice(step, body.get("tool_choice"), label, number)
        _check_output_format(step, body, label, number)


def _check_tool_choice(step: Reply, choice: Any, label: str, number: int) -> None:
    if not isinstance(choice, Mapping):
        return
    kind = choice.get("type")
    calls = [block for block in step.content if block.get("type") in _CALLS]
    called = ", ".join(repr(block.get("name")) for block in calls)
    asked = _("request {number} sets tool_choice={choice}").format(
        number=number, choice=json.dumps(dict(choice)))
    if kind == "none" and calls:
        raise ScriptError(_(
            "{asked}, so the live model never calls a tool, but {label} calls {called}. "
            "Script a text reply for this step, or change tool_choice."
        ).format(asked=asked, label=label, called=called))
    if kind not in ("any", "tool"):
        if choice.get("disable_parallel_tool_use") and len(calls) > 1:
            raise _parallel(asked, label, len(calls))
        return
    if not calls:
        raise ScriptError(_(
            "{asked}, so the live model always answers with a tool call, but {label} makes "
            "none. Script a call(...) for this step, or drop tool_choice."
        ).format(asked=asked, label=label))
    if step.content[0].get("type") not in _CALLS:
        raise ScriptError(_(
            "{asked}, so the live reply starts with the tool call (no text before it), but "
            "{label} starts with a {kind} block. Move the call first."
        ).format(asked=asked, label=label, kind=step.content[0].get("type")))
    if kind == "tool" and any(block.get("name") != choice.get("name") for block in calls):
        raise ScriptError(_(
            "{asked}, so the live model calls only {name!r}, but {label} calls {called}. "
            "Call the forced tool in the script."
        ).format(asked=asked, name=choice.get("name"), label=label, called=called))
    if choice.get("disable_parallel_tool_use") and len(calls) > 1:
        raise _parallel(asked, label, len(calls))


def _memory_commands() -> dict[str, Any]:
    """`command -> the SDK's model of it` for the memory tool (memory_20250818)."""
    members = typing.get_args(typing.get_args(BetaMemoryTool20250818Command)[0])
    return {typing.get_args(member.model_fields["command"].annotation)[0]: member
            for member in members}


_MEMORY_COMMANDS = _memory_commands()


def _check_memory(step: Reply, body: Mapping[str, Any], label: str, number: int) -> None:
    """A memory tool call is one of the commands the SDK names, with their fields: what
    the live model sends (the SDK's `BetaMemoryTool20250818Command`)."""
    tools = body.get("tools")
    memory = {tool.get("name") for tool in (tools if isinstance(tools, list) else [])
              if isinstance(tool, Mapping) and tool.get("type") == "memory_20250818"}
    for block in step.content:
        if block.get("type") != "tool_use" or block.get("name") not in memory:
            continue
        arguments = block.get("input") or {}
        command = arguments.get("command") if isinstance(arguments, Mapping) else None
        model = _MEMORY_COMMANDS.get(command) if isinstance(command, str) else None
        problem = None
        if model is None:
            problem = f"its command is not one of {', '.join(sorted(_MEMORY_COMMANDS))}"
        else:
            try:
                model.model_validate(arguments)
            except pydantic.ValidationError as err:
                problem = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                    for e in err.errors())
        if problem:
            raise ScriptError(
                f"{label} calls the memory tool with {arguments!r}, which the live model "
                f"never sends: {problem}. Script a memory command such as "
                "call('memory', command='view', path='/memories')."
            )


def _check_loaded(step: Reply, body: Mapping[str, Any], label: str, number: int) -> None:
    """A deferred tool is called only after a `tool_reference` loaded it (see `search.py`)."""
    hidden = hidden_tools(body)
    for block in step.content:
        hidden -= loaded([block])
        if block.get("type") == "tool_use" and block.get("name") in hidden:
            raise ScriptError(
                f"request {number} defines the tool {block.get('name')!r} with defer_loading: "
                f"true and no tool_reference has loaded it, so the live model cannot call it "
                f"yet, but {label} does. Search for it first: put "
                f"*search_tools({block.get('name')!r}) before the call."
            )


def _check_strict(step: Reply, body: Mapping[str, Any], label: str, number: int) -> None:
    """A tool defined with `strict: true` gets input that fits its `input_schema`: the
    API's strict tool use guarantees it (platform.claude.com/docs/en/build-with-claude/
    structured-outputs, "strict tool use")."""
    tools = body.get("tools")
    schemas = {tool.get("name"): tool.get("input_schema") for tool in
               (tools if isinstance(tools, list) else [])
               if isinstance(tool, Mapping) and tool.get("strict") is True}
    for block in step.content:
        schema = schemas.get(block.get("name")) if block.get("type") == "tool_use" else None
        if not isinstance(schema, Mapping):
            continue
        error = best_match(validator(dict(schema)).iter_errors(block.get("input", {})))
        if error is not None:
            raise ScriptError(
                f"request {number} defines the tool {block.get('name')!r} with strict: true, "
                f"so the live model's input always fits its input_schema, but {label} calls "
                f"it with input that does not: {error.message}. Fix the call's input."
            )


def _parallel(asked: str, label: str, count: int) -> ScriptError:
    return ScriptError(_(
        "{asked}, so the live model makes at most one call, but {label} makes {count}. "
        "Script one call per step."
    ).format(asked=asked, label=label, count=count))


def output_schema(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a structured-output request asks for (GA `output_config.format`,
    beta `output_format`), or None."""
    config = body.get("output_config")
    fmt = config.get("format") if isinstance(config, Mapping) else None
    fmt = fmt if fmt is not None else body.get("output_format")
    if isinstance(fmt, Mapping) and fmt.get("type") == "json_schema":
        schema = fmt.get("schema")
        return dict(schema) if isinstance(schema, Mapping) else None
    return None


def _check_output_format(step: Reply, body: Mapping[str, Any], label: str, number: int) -> None:
    schema = output_schema(body)
    if schema is None or step.resolved_stop_reason != "end_turn":
        return
    text = "".join(str(b.get("text", "")) for b in step.content if b.get("type") == "text")
    wanted = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    if len(wanted) > 300:
        wanted = wanted[:297] + "..."
    try:
        answer = json.loads(text)
    except ValueError:
        problem = f"answers prose ({_short(text)}), not JSON"
    else:
        error = best_match(validator(schema).iter_errors(answer))
        if error is None:
            return
        problem = f"answers JSON that does not fit it: {error.message}"
    raise ScriptError(
        f"request {number} asks for structured output (JSON matching a schema), but {label} "
        f"{problem}. The schema wants: {wanted}. Script the reply as "
        "say(json.dumps({...})) with an object that fits the schema."
    )


def _short(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")
