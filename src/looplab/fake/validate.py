"""The request checks the fake makes before any script step runs: required parameters,
tool definitions and the message history (via `looplab.core.rules`). Each raises `BadRequest`;
the texts follow the API's pydantic-style validation messages."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from anthropic.types import message_create_params
from anthropic.types.beta import message_create_params as beta_message_create_params

from ..core.rules import first_error

# Top-level body keys the SDK can send (GA and beta `messages.create`), read from the SDK so
# the list cannot drift from it.
_KNOWN_PARAMS = (
    frozenset(message_create_params.MessageCreateParamsBase.__annotations__)
    | frozenset(beta_message_create_params.MessageCreateParamsBase.__annotations__)
    | {"stream"}
)
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")


class BadRequest(Exception):
    """A request the API would reject with HTTP 400 `invalid_request_error`."""

    def __init__(self, message: str, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


def check_request(body: Mapping[str, Any]) -> None:
    """Raise `BadRequest` with the API's text for what the API itself would reject."""
    for key in body:
        if key not in _KNOWN_PARAMS:
            # pydantic's text for a forbidden extra field, as the live API's validation says it.
            raise BadRequest(f"{key}: Extra inputs are not permitted")
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
    _check_tools(body.get("tools"))
    error = _first_history_error(body["messages"], body.get("tools"))
    if error is not None:
        raise BadRequest(error)


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
        if name in seen:
            raise BadRequest("tools: Tool names must be unique.")
        seen.add(name)


def _first_history_error(messages: list[Any], tools: Any) -> str | None:
    violation = first_error(messages, tools=tools)
    return None if violation is None else violation.message
