"""The fake Messages API: an `httpx2.MockTransport` handler that checks requests like the
API does and answers with the model's steps.

Order of work for `POST /v1/messages`: record the body; reject a `thread` request; check
the required parameters, the tools and the history (HTTP 400, real envelope); check
`thinking` blocks came back unchanged; then ask the model for a step and send it as a
reply (JSON or SSE) or a fault.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import anthropic
import httpx2

from .clock import FakeClock
from .models import FakeModel, ScriptError
from .sse import sse_body
from .steps import Fault, Reply
from .usage import estimate_tokens, output_tokens
from .validate import BadRequest, check_request

_THINKING_MESSAGE = (
    "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
    "modified. These blocks must remain as they were in the original response."
)


MAX_BODY_BYTES = 32 * 1024 * 1024
"""The Messages API's request size limit (API errors page: 32 MB)."""


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
        if len(request.content) > MAX_BODY_BYTES:
            # Type and gist from the API errors page (413, "exceeds the maximum allowed
            # number of bytes"); the exact sentence is the fake's.
            return _error(
                413,
                "request_too_large",
                "Request exceeds the maximum allowed number of bytes (32 MB). "
                "(looplab's fake: exact live wording not verified)",
                request_id,
            )
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
            # The live shape (SDK `types/usage.py`): the fake writes every cache entry with
            # the default 5-minute TTL and runs no server tools.
            "cache_creation": {
                "ephemeral_5m_input_tokens": written,
                "ephemeral_1h_input_tokens": 0,
            },
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
            **self._scripted_usage(step),
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

    def _scripted_usage(self, step: Reply) -> dict[str, Any]:
        """A script's own `usage` numbers, refused unless they are whole numbers ≥ 0."""
        for key, value in (step.usage or {}).items():
            if key.endswith("_tokens") and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0
            ):
                raise ScriptError(
                    f"the script's reply to request {len(self.model.requests)} sets usage "
                    f"{key}={value!r}; token counts must be whole numbers ≥ 0. Fix that step's "
                    "`usage`."
                )
        return dict(step.usage or {})

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
        if not found and blocks:
            # Live text up to "thinking block" as stored in Anthropic's cookbook output
            # (cited in the project's issue); the tail is the fake's wording.
            raise BadRequest(
                f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, "
                f"but found `{blocks[0].get('type')}`. When `thinking` is enabled, a final "
                "`assistant` message must start with a thinking block. Send the assistant "
                "content back unchanged, thinking blocks included. (looplab's fake: exact live "
                "wording after 'thinking block' not verified)"
            )
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
