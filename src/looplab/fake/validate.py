"""The request checks the fake makes before any script step runs: the parameters, tool
definitions, content blocks and the message history (via `looplab.history.rules`). Each
raises `BadRequest` (`NotFound` for a model id); the texts follow the API's pydantic-style
validation messages, and say so where the live wording is not sourced."""

from __future__ import annotations

import re
import typing
from collections.abc import Mapping
from typing import Any

from anthropic.types import (
    MetadataParam,
    OutputConfigParam,
    ToolChoiceAnyParam,
    ToolChoiceAutoParam,
    ToolChoiceNoneParam,
    ToolChoiceToolParam,
    message_create_params,
)
from anthropic.types.beta import message_create_params as beta_message_create_params

from ..history.rules import first_error
from .blocks import check_blocks
from .budget import check_task_budget
from .errors import FAKE_WORDING, BadRequest, NotFound
from .inventory import TOOL_FIELDS, check_parameters
from .refusals import check_fallbacks, check_model, check_whole
from .thinking import check_thinking_parameter

__all__ = ["CLAUDE_MODEL_ID", "BadRequest", "NotFound", "check_request"]

# Top-level body keys the SDK can send (GA and beta `messages.create`), read from the SDK so
# the list cannot drift from it.
_KNOWN_PARAMS = (
    frozenset(message_create_params.MessageCreateParamsBase.__annotations__)
    | frozenset(beta_message_create_params.MessageCreateParamsBase.__annotations__)
    | {"stream"}
)
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
CLAUDE_MODEL_ID = re.compile(r"^claude-[a-z0-9]+(?:[-.][a-z0-9]+)*$")
"""The shape of a Claude model id or alias (claude-opus-4-1, claude-3-5-haiku-20241022):
the fake knows no list of models, so any id of this shape is served."""
# tool_choice type -> its fields, read from the SDK's types.
_CHOICE_FIELDS = {
    "auto": frozenset(ToolChoiceAutoParam.__annotations__),
    "any": frozenset(ToolChoiceAnyParam.__annotations__),
    "tool": frozenset(ToolChoiceToolParam.__annotations__),
    "none": frozenset(ToolChoiceNoneParam.__annotations__),
}
_METADATA_FIELDS = frozenset(MetadataParam.__annotations__)
_EFFORTS: tuple[str, ...] = typing.get_args(
    typing.get_args(typing.get_type_hints(OutputConfigParam)["effort"])[0])
"""The effort levels the SDK's `OutputConfigParam` names (low ... max)."""
_NOT_AN_OBJECT = "Input should be a valid dictionary or object to extract fields from"


def check_request(body: Mapping[str, Any]) -> None:
    """Raise `BadRequest` with the API's text for what the API itself would reject."""
    for key in body:
        if key not in _KNOWN_PARAMS:
            # pydantic's text for a forbidden extra field, as the live API's validation says it.
            raise BadRequest(f"{key}: Extra inputs are not permitted")
    check_parameters(body)
    for name in ("max_tokens", "messages", "model"):
        if name not in body:
            raise BadRequest(f"{name}: Field required")
    if not isinstance(body["model"], str):
        raise BadRequest("model: Input should be a valid string")
    max_tokens = body["max_tokens"]
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
        raise BadRequest("max_tokens: Input should be a valid integer")
    if max_tokens < 1:
        raise BadRequest("max_tokens: Input should be greater than or equal to 1")
    if not isinstance(body["messages"], list):
        raise BadRequest("messages: Input should be a valid list")
    check_whole(body)
    _check_effort(body.get("output_config"))
    check_task_budget(body.get("output_config"))
    check_fallbacks(body)
    _check_tools(body.get("tools"))
    _check_tool_choice(body)
    _check_metadata(body.get("metadata"))
    _check_stop_sequences(body.get("stop_sequences"))
    check_thinking_parameter(body)
    check_blocks(body)
    violation = first_error(body["messages"], tools=body.get("tools"))
    if violation is not None:
        raise BadRequest(violation.message)
    if not CLAUDE_MODEL_ID.match(body["model"]):
        # live text and status: github.com/anthropics/claude-code/issues/5349
        raise NotFound(f"model: {body['model']}")
    check_model(body)


def _check_tools(tools: Any) -> None:
    if tools is None:
        return
    if not isinstance(tools, list):
        raise BadRequest("tools: Input should be a valid list")
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise BadRequest(f"tools.{i}: Input should be a valid dictionary or object")
        kind = tool.get("type")
        custom = kind in (None, "custom")
        where = f"tools.{i}.custom" if custom else f"tools.{i}"
        name = tool.get("name")
        if name is None:
            raise BadRequest(f"{where}.name: Field required")
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            raise BadRequest(f"{where}.name: String should match pattern '{_TOOL_NAME.pattern}'")
        if custom:
            schema = tool.get("input_schema")
            if schema is None:
                raise BadRequest(f"{where}.input_schema: Field required")
            if not isinstance(schema, dict):
                raise BadRequest(f"{where}.input_schema: Input should be a valid dictionary")
            if schema.get("type") != "object":
                raise BadRequest(f"{where}.input_schema.type: Input should be 'object'")
            for key in tool:  # a field the API does not have is refused, never ignored
                if key not in TOOL_FIELDS and key not in ("type", "allowed_callers"):
                    raise BadRequest(f"{where}.{key}: Extra inputs are not permitted")
        if name in seen:
            raise BadRequest("tools: Tool names must be unique.")
        seen.add(name)


def tool_names(body: Mapping[str, Any]) -> list[str]:
    """The names of the tools a request offers."""
    tools = body.get("tools")
    return [str(t.get("name")) for t in tools if isinstance(t, dict)] if tools else []


def _check_tool_choice(body: Mapping[str, Any]) -> None:
    choice = body.get("tool_choice")
    if choice is None:
        return
    if not isinstance(choice, dict):
        raise BadRequest(f"tool_choice: {_NOT_AN_OBJECT}{FAKE_WORDING}")
    kind = choice.get("type")
    if kind not in _CHOICE_FIELDS:
        tags = ", ".join(f"'{tag}'" for tag in _CHOICE_FIELDS)
        raise BadRequest(
            f"tool_choice: Input tag {kind!r} found using 'type' does not match any of the "
            f"expected tags: {tags}{FAKE_WORDING}"
        )
    where = f"tool_choice.{kind}"
    for key in choice:
        if key not in _CHOICE_FIELDS[kind]:
            raise BadRequest(f"{where}.{key}: Extra inputs are not permitted{FAKE_WORDING}")
    if not isinstance(choice.get("disable_parallel_tool_use", False), bool):
        raise BadRequest(
            f"{where}.disable_parallel_tool_use: Input should be a valid boolean{FAKE_WORDING}"
        )
    names = tool_names(body)
    if kind == "tool" and "name" not in choice:
        raise BadRequest(f"{where}.name: Field required{FAKE_WORDING}")
    if kind == "tool" and choice["name"] not in names:
        raise BadRequest(
            f"tool_choice.name: the forced tool {choice['name']!r} is not in `tools` "
            f"(tools: {', '.join(names) or 'none'}).{FAKE_WORDING}"
        )
    if kind == "any" and not names:
        raise BadRequest(
            f"tool_choice: {{'type': 'any'}} forces a tool call, but the request has no "
            f"`tools`.{FAKE_WORDING}"
        )


def _check_effort(config: Any) -> None:
    """`output_config.effort`: one of the SDK's values. The fake reports nothing different
    for any of them: effort is "a behavioral signal, not a strict token budget" that
    changes how many tokens the model chooses to spend
    (platform.claude.com/docs/en/build-with-claude/effort), and the script is the model,
    so the scripted reply is what the model spent at that effort. Which models take which
    level (`max`, `xhigh`) is not checked."""
    if not isinstance(config, Mapping) or config.get("effort") is None:
        return
    if config["effort"] not in _EFFORTS:
        values = ", ".join(f"'{value}'" for value in _EFFORTS[:-1])
        raise BadRequest(f"output_config.effort: Input should be {values} or "
                         f"'{_EFFORTS[-1]}'{FAKE_WORDING}")


def _check_metadata(metadata: Any) -> None:
    if metadata is None:
        return
    if not isinstance(metadata, dict):
        raise BadRequest(f"metadata: {_NOT_AN_OBJECT}{FAKE_WORDING}")
    for key in metadata:
        if key not in _METADATA_FIELDS:
            raise BadRequest(f"metadata.{key}: Extra inputs are not permitted{FAKE_WORDING}")
    user_id = metadata.get("user_id")
    if user_id is not None and not isinstance(user_id, str):
        raise BadRequest(f"metadata.user_id: Input should be a valid string{FAKE_WORDING}")


def _check_stop_sequences(sequences: Any) -> None:
    if sequences is None:
        return
    if not isinstance(sequences, list):
        raise BadRequest(f"stop_sequences: Input should be a valid list{FAKE_WORDING}")
    for i, sequence in enumerate(sequences):
        if not isinstance(sequence, str):
            raise BadRequest(f"stop_sequences.{i}: Input should be a valid string{FAKE_WORDING}")
