"""The fake Messages API: an `httpx2.MockTransport` handler that checks requests like the
API does and answers with the model's steps.

Order of work for `POST /v1/messages`: record the body; reject a `thread` request; check
the required parameters, the tools and the history (HTTP 400, real envelope); check
`thinking` blocks came back unchanged; then ask the model for a step and send it as a
reply (JSON or SSE) or a fault.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from typing import Any

import anthropic
import httpx2

from ..rules import first_error
from .clock import FakeClock
from .models import FakeModel, ScriptError
from .sse import sse_body
from .steps import Fault, Reply
from .usage import estimate_tokens, output_tokens

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
_THINKING_MESSAGE = (
    "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
    "modified. These blocks must remain as they were in the original response."
)


class BadRequest(Exception):
    """A request the API would reject with HTTP 400 `invalid_request_error`."""

    def __init__(self, message: str, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class FakeServer:
    """Serves one fake model. Call it with an `httpx2.Request`."""

    def __init__(self, model: FakeModel, clock: FakeClock | None = None) -> None:
        self.model = model
        self.clock = clock

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        try:
            return self._handle(request)
        except anthropic.AnthropicError:
            raise
        except Exception as err:
            # Anything else would reach the caller as a retried "Connection error."
            raise ScriptError(
                f"the fake model raised {err!r} while answering request "
                f"{len(self.model.requests)}; see the traceback above."
            ) from err

    def _handle(self, request: httpx2.Request) -> httpx2.Response:
        request_id = self.model.memory.ids.next("req")
        path = request.url.path
        if request.method != "POST" or path not in ("/v1/messages", "/v1/messages/count_tokens"):
            return _unsupported(request.method, path, request_id)
        try:
            body = json.loads(request.content or b"null")
        except ValueError:
            return _invalid("The request body is not valid JSON.", request_id)
        if not isinstance(body, dict):
            return _invalid("The request body must be a JSON object.", request_id)
        if path == "/v1/messages/count_tokens":
            return self._count_tokens(body, request_id)
        self.model.requests.append(body)
        try:
            if "thread" in body:
                raise BadRequest(
                    "thread: message threads are not supported by the offline fake API; "
                    "send the full history instead.",
                    {"error_code": "thread_unsupported_request", "unsupported": ["thread"]},
                )
            check_request(body)
            self._check_thinking(body["messages"])
        except BadRequest as bad:
            return _invalid(bad.message, request_id, bad.details)
        step = self.model.next_step(body)
        self._wait(step.delay_s)
        if isinstance(step, Fault):
            return _error(
                step.status, step.type, step.message, request_id, step.headers, step.details
            )
        message = self._message(step, body)
        headers = {"request-id": request_id}
        if body.get("stream"):
            headers["content-type"] = "text/event-stream"
            return httpx2.Response(200, headers=headers, text=sse_body(message))
        return httpx2.Response(200, headers=headers, json=message)

    # -- answers ----------------------------------------------------------------------

    def _count_tokens(self, body: dict[str, Any], request_id: str) -> httpx2.Response:
        try:
            check_request({"max_tokens": 1, **body})
        except BadRequest as bad:
            return _invalid(bad.message, request_id, bad.details)
        return httpx2.Response(
            200, headers={"request-id": request_id}, json={"input_tokens": estimate_tokens(body)}
        )

    def _message(self, step: Reply, body: dict[str, Any]) -> dict[str, Any]:
        memory = self.model.memory
        content = [dict(block) for block in step.content]
        thinking: list[tuple[int, str, str]] = []
        for position, block in enumerate(content):
            kind = block.get("type")
            if kind == "tool_use":
                self._check_tool(block, body)
                block.setdefault("id", memory.ids.next("toolu"))
            elif kind == "server_tool_use":
                self._check_tool(block, body)
                block.setdefault("id", memory.ids.next("srvtoolu"))
            elif kind == "thinking" and "signature" not in block:
                block["signature"] = memory.ids.signature(str(block.get("thinking", "")))
            if kind == "thinking":
                memory.thinking[block["signature"]] = str(block.get("thinking", ""))
                thinking.append((position, block["signature"], str(block.get("thinking", ""))))
        for block in content:
            if block.get("type") == "tool_use" and thinking:
                memory.thinking_by_tool_use[block["id"]] = thinking

        stop_reason = step.resolved_stop_reason
        stop_sequence = step.stop_sequence
        if stop_reason == "stop_sequence" and stop_sequence is None:
            sequences = body.get("stop_sequences") or []
            stop_sequence = sequences[0] if sequences else None

        fresh, written, read = memory.cache.account(body)
        produced = output_tokens(content)
        if stop_reason == "max_tokens":
            produced = int(body["max_tokens"])
        usage: dict[str, Any] = {
            "input_tokens": fresh,
            "output_tokens": produced,
            "cache_creation_input_tokens": written,
            "cache_read_input_tokens": read,
            **(step.usage or {}),
        }
        return {
            "id": memory.ids.next("msg"),
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": stop_sequence,
            "stop_details": dict(step.stop_details) if step.stop_details else None,
            "usage": usage,
        }

    def _check_tool(self, block: dict[str, Any], body: dict[str, Any]) -> None:
        names = [tool.get("name") for tool in body.get("tools") or [] if isinstance(tool, dict)]
        if block.get("name") not in names:
            offered = ", ".join(str(name) for name in names) or "none"
            raise ScriptError(
                f"the script makes the model call the tool {block.get('name')!r}, but request "
                f"{len(self.model.requests)} offers no such tool (tools: {offered}). Fix the "
                "tool name in the script, or pass that tool in `tools=`."
            )

    def _wait(self, seconds: float) -> None:
        if seconds <= 0:
            return
        if self.clock is not None:
            self.clock.advance(seconds)
        else:
            time.sleep(seconds)

    # -- thinking ---------------------------------------------------------------------

    def _check_thinking(self, messages: list[Any]) -> None:
        """The latest assistant message must carry its `thinking` blocks exactly as sent."""
        memory = self.model.memory
        index = next(
            (i for i in range(len(messages) - 1, -1, -1) if _role(messages[i]) == "assistant"),
            None,
        )
        if index is None:
            return
        blocks = _content_blocks(messages[index])
        found = [
            (position, block)
            for position, block in enumerate(blocks)
            if block.get("type") in ("thinking", "redacted_thinking")
        ]
        for position, block in found:
            if block.get("type") != "thinking":
                continue
            if memory.thinking.get(str(block.get("signature"))) != block.get("thinking"):
                raise BadRequest(f"messages.{index}.content.{position}: {_THINKING_MESSAGE}")
        expected: list[tuple[int, str, str]] | None = None
        for block in blocks:
            if block.get("type") == "tool_use" and block.get("id") in memory.thinking_by_tool_use:
                expected = memory.thinking_by_tool_use[str(block["id"])]
                break
        if expected is None:
            return
        actual = [
            (position, str(block.get("signature")), block.get("thinking"))
            for position, block in found
            if block.get("type") == "thinking"
        ]
        if actual != expected:
            mismatch = next(
                i
                for i in range(max(len(actual), len(expected)))
                if i >= len(actual) or i >= len(expected) or actual[i] != expected[i]
            )
            # name the place where the original block belongs (or the extra block)
            position = expected[mismatch][0] if mismatch < len(expected) else actual[mismatch][0]
            raise BadRequest(f"messages.{index}.content.{position}: {_THINKING_MESSAGE}")


# -- request checks -------------------------------------------------------------------------


def check_request(body: Mapping[str, Any]) -> None:
    """Raise `BadRequest` with the API's text for what the API itself would reject."""
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


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, Mapping) else None


def _content_blocks(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, list):
        return [block if isinstance(block, dict) else {} for block in content]
    return []


def _unsupported(method: str, path: str, request_id: str) -> httpx2.Response:
    # The fake's own wording: a live 404 would read like a wrong id, which misleads here.
    return _error(
        404,
        "not_found_error",
        f"looplab's offline fake serves only POST /v1/messages and /v1/messages/count_tokens, "
        f"not {method} {path}. To call the real API, set LOOPLAB_LIVE=1 and ANTHROPIC_API_KEY.",
        request_id,
    )


def _invalid(
    message: str, request_id: str, details: Mapping[str, Any] | None = None
) -> httpx2.Response:
    return _error(400, "invalid_request_error", message, request_id, details=details)


def _error(
    status: int,
    kind: str,
    message: str,
    request_id: str,
    headers: Mapping[str, str] | None = None,
    details: Mapping[str, Any] | None = None,
) -> httpx2.Response:
    error: dict[str, Any] = {"type": kind, "message": message}
    if details:
        error["details"] = dict(details)
    return httpx2.Response(
        status,
        headers={"request-id": request_id, **(headers or {})},
        json={"type": "error", "error": error, "request_id": request_id},
    )
