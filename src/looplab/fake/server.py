"""The fake Messages API: `httpx2.MockTransport` handlers (sync and async) that check
requests like the API does and answer with the model's steps.

Order of work for `POST /v1/messages`: refuse a beta the fake does not serve; record the
body; refuse a parameter the fake does not simulate (`inventory.py`); check the
parameters, tools, content blocks and history (HTTP 400, real envelope; 404 for a model
id that is not Claude-shaped); check `thinking` blocks came back unchanged; apply
`context_management` edits (`editing.py`: the model and `usage` see the edited prompt,
`model.requests` keeps what was sent); then ask the model for a step and build the reply
(JSON or SSE) or the fault.

The answer is sent after the step's `delay_s`. A delay longer than the request's read
timeout (the client's `timeout=`, or `.with_options(timeout=...)`) waits that timeout
instead and raises `httpx2.ReadTimeout`, which the SDK retries and then raises as
`anthropic.APITimeoutError`. A retry of a timed-out request gets the same step again (the
model is still slow), so one slow step times out every attempt. With a `FakeClock` the
waits move the clock instead of taking time; the async handler waits with
`asyncio.sleep`, so delays never block the event loop.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2

from .clock import FakeClock
from .credit import credit_enabled, mint, redeem
from .editing import Edited, edit_context, paused_message, with_edits
from .errors import FAKE_WORDING, BadRequest, error_response, refusal_response
from .fallback import refused, with_fallbacks
from .inventory import check_headers
from .message import RAW_INPUTS, build_message
from .models import FakeModel, ScriptError
from .pace import PacedStream
from .refusals import check_length
from .sharing import share_history
from .sse import sse_events
from .steps import Fault, Reply, Step
from .thinking import check_thinking_blocks
from .usage import estimate_tokens
from .validate import check_request

MAX_BODY_BYTES = 32 * 1024 * 1024
"""The Messages API's request size limit (API errors page: 32 MB)."""

_SERVED = ("/v1/messages", "/v1/messages/count_tokens")


@dataclass(frozen=True)
class Pending:
    """An answer to send after `wait_s` seconds: `response`, or a read timeout if None."""

    request: httpx2.Request
    wait_s: float
    response: httpx2.Response | None

    def result(self) -> httpx2.Response:
        if self.response is None:
            raise httpx2.ReadTimeout(
                f"looplab's fake: the scripted reply takes longer than the request's read "
                f"timeout of {self.wait_s:g} s",
                request=self.request,
            )
        return self.response


class FakeServer:
    """Serves one fake model. Call it with an `httpx2.Request`."""

    def __init__(self, model: FakeModel, clock: FakeClock | None = None) -> None:
        self.model = model
        self.clock = clock
        self._credit: tuple[dict[str, Any] | None, bool] = (None, False)
        """(usage.fallback_credit of the request being answered, whether its refusal gets a
        fallback credit token)."""
        self._slow: tuple[bytes, Step] | None = None
        """(request body, step) of the last attempt that timed out, replayed on its retry."""

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        pending = self.prepare(request)
        if pending.wait_s > 0:
            if self.clock is not None:
                self.clock.advance(pending.wait_s)
            else:
                time.sleep(pending.wait_s)
        return pending.result()

    def prepare(self, request: httpx2.Request) -> Pending:
        """Check `request` and build its answer; the caller waits and sends it."""
        try:
            return self._prepare(request)
        except anthropic.AnthropicError:
            raise
        except Exception as err:
            # Anything else would reach the caller as a retried "Connection error."
            raise ScriptError(
                f"the fake model raised {err!r} while answering request "
                f"{len(self.model.requests)}; see the traceback above."
            ) from err

    def _prepare(self, request: httpx2.Request) -> Pending:
        request_id = self.model.memory.ids.next("req")
        path = request.url.path
        if request.method != "POST" or path not in _SERVED:
            return Pending(request, 0, _unsupported(request.method, path, request_id))
        if len(request.content) > MAX_BODY_BYTES:
            # Type and gist from the API errors page (413, "exceeds the maximum allowed
            # number of bytes"); the exact sentence is the fake's.
            message = "Request exceeds the maximum allowed number of bytes (32 MB)." + FAKE_WORDING
            too_large = error_response(413, "request_too_large", message, request_id)
            return Pending(request, 0, too_large)
        try:
            body = _parse_body(request.content)
            check_headers(request.headers)
            if path == "/v1/messages/count_tokens":
                return Pending(request, 0, _ok(request_id, json=_count(body)))
            body = share_history(body, self.model.requests[-1] if self.model.requests else None)
            self.model.requests.append(body)
            check_request(body)
            check_thinking_blocks(body["messages"], self.model.memory)
            credit = redeem(self.model.memory, body)
            edited = edit_context(body)
            body = edited.body
            check_length(self.model.memory.cache.count(body))
        except BadRequest as bad:
            return Pending(request, 0, refusal_response(bad, request_id))
        if edited.compaction is not None and edited.compaction.pause:
            paused = paused_message(self.model, body, edited)
            return Pending(request, 0, self._send(body, request_id, paused))
        self._credit = (credit, credit_enabled(request.headers.get("anthropic-beta")))
        step = self._step(request, body)
        timeout = request.extensions.get("timeout", {}).get("read")
        if timeout is not None and step.delay_s > timeout:
            self._slow = (request.content, step)
            return Pending(request, float(timeout), None)
        try:
            answer = self._answer(step, body, request_id, edited)
        except RecursionError:
            # The fake's own answer: a script whose reply cannot be written as JSON. Not
            # retried, so the loop stops at once with its history.
            message = ("looplab's fake: the scripted reply is nested too deeply to send as "
                       "JSON; no live API sends such a reply")
            answer = error_response(500, "api_error", message, request_id,
                                    {"x-should-retry": "false"})
        return Pending(request, step.delay_s, answer)

    def _step(self, request: httpx2.Request, body: dict[str, Any]) -> Step:
        slow, self._slow = self._slow, None
        retry = request.headers.get("x-stainless-retry-count", "0") != "0"
        if retry and slow is not None and slow[0] == request.content:
            return slow[1]
        return self.model.next_step(body)

    def _answer(self, step: Step, body: dict[str, Any], request_id: str,
                edited: Edited) -> httpx2.Response:
        pace = step.tokens_per_s if isinstance(step, Reply) else None  # pace.py
        if "fallbacks" in body and isinstance(step, Reply) and refused(step):
            served = with_fallbacks(self.model, step, body, self.model.next_step)
            if isinstance(served, Fault):
                step = served
            else:
                return self._send(body, request_id,
                                  self._credited(with_edits(served, edited), body), pace)
        if isinstance(step, Fault):
            return error_response(
                step.status, step.type, step.message, request_id, step.headers, step.details
            )
        message = with_edits(build_message(self.model, step, body), edited)
        return self._send(body, request_id, self._credited(message, body), pace)

    def _credited(self, message: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        """`message` with its fallback credit: the outcome of a token the request
        presented, and a token for a refusal when the request enabled them (credit.py)."""
        presented, minting = self._credit
        if presented is not None:
            message["usage"]["fallback_credit"] = presented
        if minting:
            mint(self.model.memory, message, body)
        return message

    def _send(self, body: dict[str, Any], request_id: str, message: dict[str, Any],
              pace: float | None = None) -> httpx2.Response:
        """`message` as JSON, or as server-sent events when the request streams; with
        `pace` (the step's `tokens_per_s`), sent at that writing speed (`pace.py`)."""
        raw = message.pop(RAW_INPUTS, {})
        if pace is not None:
            paced = PacedStream(sse_events(message, raw), pace, self.clock)
            if body.get("stream"):
                return _ok(request_id, stream=paced, headers={"content-type": "text/event-stream"})
            whole = json.dumps(message, ensure_ascii=False).encode()
            return _ok(request_id, stream=paced.whole(whole),
                       headers={"content-type": "application/json"})
        if body.get("stream"):
            headers = {"content-type": "text/event-stream"}
            return _ok(request_id, text="".join(sse_events(message, raw)), headers=headers)
        return _ok(request_id, json=message)


class AsyncFakeServer:
    """The `httpx2.AsyncClient` twin of `FakeServer`: delays wait with `asyncio.sleep`, so
    concurrent requests overlap instead of blocking the event loop."""

    def __init__(self, model: FakeModel, clock: FakeClock | None = None) -> None:
        self.server = FakeServer(model, clock)

    async def __call__(self, request: httpx2.Request) -> httpx2.Response:
        pending = self.server.prepare(request)
        if pending.wait_s > 0:
            if self.server.clock is not None:
                self.server.clock.advance(pending.wait_s)
            else:
                await asyncio.sleep(pending.wait_s)
        return pending.result()


def _count(body: dict[str, Any]) -> dict[str, Any]:
    """The answer of `POST /v1/messages/count_tokens`: the prompt the model would see."""
    check_request({"max_tokens": 2**31 - 1, **body})
    edited = edit_context(body)
    count: dict[str, Any] = {"input_tokens": estimate_tokens(edited.body)}
    if edited.management is not None:
        count["context_management"] = {"original_input_tokens": estimate_tokens(body)}
    return count


def _parse_body(content: bytes) -> dict[str, Any]:
    """The JSON body, refused (400) unless it is a JSON object of standard JSON values."""
    try:
        body = json.loads(content or b"null", parse_constant=_reject_constant)
    except RecursionError as err:
        raise BadRequest("The request body is nested too deeply to parse." + FAKE_WORDING) from err
    except ValueError as err:
        # live text: "The request body is not valid JSON: " + the parser's message
        # (github.com/anthropics/claude-code/issues/6464)
        raise BadRequest(f"The request body is not valid JSON: {err}") from err
    if not isinstance(body, dict):
        raise BadRequest("The request body must be a JSON object." + FAKE_WORDING)
    return body


def _reject_constant(name: str) -> Any:
    # Python's json reads NaN and Infinity; JSON has no such numbers, and the API refuses them.
    raise ValueError(f"{name} is not a JSON number{FAKE_WORDING}")


def _ok(request_id: str, *, headers: dict[str, str] | None = None, **body: Any) -> httpx2.Response:
    return httpx2.Response(200, headers={"request-id": request_id, **(headers or {})}, **body)


def _unsupported(method: str, path: str, request_id: str) -> httpx2.Response:
    # The fake's own wording: a live 404 would read like a wrong id, which misleads here.
    return error_response(
        404,
        "not_found_error",
        f"looplab's offline fake serves only POST /v1/messages and /v1/messages/count_tokens, "
        f"not {method} {path}. To call the real API, set LOOPLAB_LIVE=1 and ANTHROPIC_API_KEY.",
        request_id,
    )
