"""What the fake model does on one request: a reply or a fault, and the builders for both.

Content blocks are plain dicts in the API's shape. Ids and signatures are left out here:
the fake server fills them in when it sends the reply, so they are deterministic.

    script = [
        [say("Let me run the tests."), call("run_tests", module="login")],
        say("All tests pass."),
    ]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

Block: TypeAlias = dict[str, Any]

# Headers on every fault: the SDK's own retry waits `retry-after-ms` (1 ms) instead of
# its default backoff, so retried tests run in milliseconds.
_FAST_RETRY = {"retry-after-ms": "1"}

_REFUSAL_EXPLANATIONS = {
    "cyber": "This request was declined because it could enable cyber harm.",
    "bio": "This request was declined because it could enable biological harm.",
    "frontier_llm": "This request was declined because it could assist the development "
    "of competing AI models.",
    "reasoning_extraction": "This request was declined because it asks for the model's "
    "internal reasoning.",
    "general_harms": "This request was declined because it could be related to harm.",
}


@dataclass(frozen=True)
class Reply:
    """A 200 answer: content blocks plus a `stop_reason` (inferred when `None`)."""

    content: tuple[Block, ...] = ()
    stop_reason: str | None = None
    stop_details: Mapping[str, Any] | None = None
    stop_sequence: str | None = None
    usage: Mapping[str, int] | None = None
    """Overrides for the computed `usage` fields, e.g. `{"output_tokens": 5}`."""
    delay_s: float = 0.0
    """Seconds before the answer arrives. Longer than the request's read timeout, every
    attempt of the request times out (`anthropic.APITimeoutError` after the SDK's retries)."""
    tokens_per_s: float | None = None
    """Writing speed of a streamed reply: each delta arrives after its tokens at this rate
    (`pace.py`), so `delay_s` is the time to the first event and the rest takes longer.
    None: the whole stream arrives at once."""

    @property
    def resolved_stop_reason(self) -> str:
        if self.stop_reason is not None:
            return self.stop_reason
        if any(block.get("type") == "tool_use" for block in self.content):
            return "tool_use"
        return "end_turn"


@dataclass(frozen=True)
class Fault:
    """An HTTP error answer with the API's error envelope."""

    status: int
    type: str
    message: str
    headers: Mapping[str, str] = field(default_factory=dict)
    details: Mapping[str, Any] | None = None
    delay_s: float = 0.0


Step: TypeAlias = Reply | Fault
StepLike: TypeAlias = Reply | Fault | Block | Sequence[Block] | str


def as_step(step: StepLike) -> Step:
    """Coerce a script entry: a block, a list of blocks or a plain string becomes a reply."""
    if isinstance(step, (Reply, Fault)):
        return step
    if isinstance(step, str):
        return Reply((say(step),))
    if isinstance(step, Mapping):
        return Reply((_check_block(step),))
    if isinstance(step, Sequence):
        return Reply(tuple(_check_block(block) for block in step))
    raise TypeError(
        f"a script step must be a reply, a fault, a content block or a list of blocks, "
        f"not {type(step).__name__}; build steps with say(), call(), reply(), overloaded()…"
    )


def _check_block(block: Any) -> Block:
    if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
        raise TypeError(
            f"a content block must be a dict with a 'type', got {block!r}; "
            "build blocks with say(), call() or think()"
        )
    return dict(block)


# -- content blocks ---------------------------------------------------------------------


def say(text: str) -> Block:
    """A `text` block."""
    return {"type": "text", "text": text}


def call(
    name: str,
    input: Mapping[str, Any] | None = None,
    /,
    *,
    id: str | None = None,
    **fields: Any,
) -> Block:
    """A `tool_use` block: `call("run_tests", module="login")` or `call("t", {"k": 1})`.

    The id is filled in when the reply is sent (`toolu_01…`, deterministic) unless given.
    Several calls in one step are a parallel call.
    """
    arguments = {**(dict(input) if input is not None else {}), **fields}
    block: Block = {"type": "tool_use", "name": name, "input": arguments}
    if id is not None:
        block["id"] = id
    return block


def search_tools(*names: str, query: str = "", tool: str = "tool_search_tool_regex",
                 ) -> tuple[Block, Block]:
    """The model's tool search, played by the script: a `server_tool_use` of the search
    tool and the `tool_search_tool_result` that loads the deferred tools `names` (one
    `tool_reference` each). Spread it into a step before the call it makes possible:

        [*search_tools("get_weather", query="weather"), call("get_weather", city="Paris")]

    The result's `tool_use_id` is filled in with the search call's id when sent.
    """
    search: Block = {"type": "server_tool_use", "name": tool, "input": {"query": query}}
    found: Block = {"type": "tool_search_tool_result", "content": {
        "type": "tool_search_tool_search_result",
        "tool_references": [{"type": "tool_reference", "tool_name": name} for name in names]}}
    return search, found


def think(text: str) -> Block:
    """A `thinking` block; the fake signs it when sending and checks it comes back whole."""
    return {"type": "thinking", "thinking": text}


# -- replies ----------------------------------------------------------------------------


def reply(
    *blocks: Block,
    stop_reason: str | None = None,
    usage: Mapping[str, int] | None = None,
    delay_s: float = 0.0,
    stop_sequence: str | None = None,
    tokens_per_s: float | None = None,
) -> Reply:
    """A 200 reply. `stop_reason` is `tool_use` if any block is a call, else `end_turn`.

    The request's `max_tokens` and `stop_sequences` still apply: a reply that runs past
    them is cut there, with `stop_reason` `max_tokens` or `stop_sequence`. Streamed, a
    reply with `tokens_per_s` sends each delta after its tokens at that rate (on the
    client's `FakeClock`, if it has one).
    """
    if tokens_per_s is not None and not tokens_per_s > 0:
        raise ValueError(f"tokens_per_s must be a number above 0, not {tokens_per_s!r}")
    return Reply(
        tuple(_check_block(block) for block in blocks),
        stop_reason=stop_reason,
        stop_sequence=stop_sequence,
        usage=usage,
        delay_s=delay_s,
        tokens_per_s=tokens_per_s,
    )


def stop(reason: str, *blocks: Block, stop_sequence: str | None = None) -> Reply:
    """A reply with any `stop_reason`, even one the SDK does not know yet.

    For `stop_sequence` without `stop_sequence=`, the first of the request's
    `stop_sequences` is reported.
    """
    return reply(*blocks, stop_reason=reason, stop_sequence=stop_sequence)


def truncate(*blocks: Block) -> Reply:
    """A reply cut off by `max_tokens`; end it with a `call(...)` to script a cut tool call.

    `output_tokens` equals the request's `max_tokens`, as when the real limit is hit.
    """
    return reply(*blocks, stop_reason="max_tokens")


def pause(
    *blocks: Block,
    tool: str = "web_search",
    input: Mapping[str, Any] | None = None,
) -> Reply:
    """A `pause_turn` reply ending in a `server_tool_use` block (id `srvtoolu_01…`).

    The request must declare the server tool (e.g. `{"type": "web_search_20250305",
    "name": "web_search"}`); the loop continues by sending the content back unchanged.
    """
    server_call: Block = {"type": "server_tool_use", "name": tool, "input": dict(input or {})}
    return reply(*blocks, server_call, stop_reason="pause_turn")


def refuse(
    category: str | None = "cyber",
    text: str | None = None,
    explanation: str | None = None,
) -> Reply:
    """A 200 reply with `stop_reason: "refusal"` and `stop_details` naming the category.

    `text` is what the model wrote before the classifier stopped it (none by default).
    """
    details = {
        "type": "refusal",
        "category": category,
        "explanation": explanation or _REFUSAL_EXPLANATIONS.get(category or ""),
    }
    content = (say(text),) if text else ()
    return Reply(content, stop_reason="refusal", stop_details=details)


# -- faults -----------------------------------------------------------------------------


def overloaded(delay_s: float = 0.0) -> Fault:
    """HTTP 529 `overloaded_error`; the SDK retries it (twice by default)."""
    return Fault(529, "overloaded_error", "Overloaded", dict(_FAST_RETRY), delay_s=delay_s)


def rate_limited(retry_after: float = 1.0, delay_s: float = 0.0) -> Fault:
    """HTTP 429 `rate_limit_error` with a `retry-after` header of `retry_after` seconds.

    The SDK's own retry follows `retry-after-ms` (1 ms) so scripts stay fast; a loop that
    reads `retry-after` itself sees the scripted value.
    """
    message = (
        "This request would exceed your organization's rate limit. "
        "For details, refer to: https://docs.anthropic.com/en/api/rate-limits."
    )
    headers = {**_FAST_RETRY, "retry-after": f"{retry_after:g}"}
    return Fault(429, "rate_limit_error", message, headers, delay_s=delay_s)


def api_error(
    status: int = 500,
    type: str = "api_error",
    message: str = "Internal server error",
    *,
    details: Mapping[str, Any] | None = None,
    delay_s: float = 0.0,
) -> Fault:
    """Any HTTP error with the API's envelope, e.g. `api_error(401, "authentication_error",
    "invalid x-api-key")`. Whether the SDK retries it depends on the status, as live."""
    if status < 400:
        raise ValueError(f"api_error needs an HTTP error status (400-599), got {status}")
    return Fault(status, type, message, dict(_FAST_RETRY), details, delay_s)
