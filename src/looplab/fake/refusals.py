"""What the API refuses about a request as a whole, beyond its shape: a retired model, a
prefill the model does not take, too many messages, a prompt too long, a `fallbacks` chain
the fake does not play.

Each text is the API's where it has a source (named beside it); otherwise it ends with
`FAKE_WORDING`, saying the sentence is the fake's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import FAKE_WORDING, BadRequest, NotFound
from .inventory import refusal

MAX_MESSAGES = 100_000
"""The SDK's `messages` docstring: "There is a limit of 100,000 messages in a single
request"."""
MAX_PROMPT_TOKENS = 200_000
"""The context window the fake gives every model (the live 400 text below says 200000)."""

RETIRED = re.compile(
    r"claude-(?:instant-)?1(?:\.\d)?(?:-\d+k)?|claude-2(?:\.[01])?"
    r"|claude-3-(?:sonnet|opus)-(?:20240229|latest)"
    r"|claude-3-5-sonnet-(?:20240620|20241022|latest)|claude-3-7-sonnet-(?:20250219|latest)"
    r"|claude-(?:sonnet|opus)-4-20250514"
)
"""Model ids past their retirement date on the model deprecations page
(platform.claude.com/docs/en/about-claude/model-deprecations: Claude 1 and Instant
2024-11-06, Claude 2 and 3 Sonnet 2025-07-21, 3.5 Sonnet 2025-10-22, 3 Opus 2026-01-05,
3.7 Sonnet 2026-02-19; Sonnet 4 and Opus 4 2026-06-15 by the release notes). "Requests to
retired models will fail": the live answer is the 404 of an unknown model."""

NO_PREFILL = re.compile(r"claude-(?:fable-5|mythos-5|opus-4-[678]|sonnet-4-6)(?:[-.@].*)?")
"""Models that refuse an assistant prefill (API errors page, #prefill-not-supported:
Claude Fable 5, Mythos 5, Opus 4.8/4.7/4.6 and Sonnet 4.6), with any dated suffix."""


def check_model(body: Mapping[str, Any]) -> None:
    """404 for a retired model, as for any model id the API does not serve."""
    if RETIRED.fullmatch(body["model"]):
        # live text and status: github.com/anthropics/claude-code/issues/5349
        raise NotFound(f"model: {body['model']}")


def check_whole(body: Mapping[str, Any]) -> None:
    """The limits on a request as a whole that its shape does not show."""
    messages = body["messages"]
    if len(messages) > MAX_MESSAGES:
        raise BadRequest(f"messages: at most {MAX_MESSAGES:,} messages are allowed in one "
                         f"request; this one has {len(messages):,}.{FAKE_WORDING}")
    if NO_PREFILL.fullmatch(body["model"]) and _prefilled(messages):
        # live text: platform.claude.com/docs/en/api/errors#prefill-not-supported
        raise BadRequest("Prefilling assistant messages is not supported for this model.")


def check_length(tokens: int) -> None:
    """A prompt longer than the context window (the fake's own count of it)."""
    if tokens > MAX_PROMPT_TOKENS:
        # live text: github.com/RipperTs/claude-code-relay/issues/23
        raise BadRequest(f"prompt is too long: {tokens} tokens > {MAX_PROMPT_TOKENS} maximum")


def _prefilled(messages: list[Any]) -> bool:
    """The request ends with an assistant message of text for the model to continue (a
    turn sent back to resume, ending in a server tool call or a compaction, is not)."""
    last = messages[-1] if messages else None
    if not isinstance(last, Mapping) or last.get("role") != "assistant":
        return False
    content = last.get("content")
    if isinstance(content, str):
        return bool(content)
    return (isinstance(content, list) and bool(content) and isinstance(content[-1], Mapping)
            and content[-1].get("type") == "text")


_PLAYED = ("model", "max_tokens")
"""The fields of a `fallbacks` entry the fake plays (see `fallback.py`)."""


def check_fallbacks(body: Mapping[str, Any]) -> None:
    """Refuse (400) a `fallbacks` value the fake does not play or the API would not take."""
    chain = body.get("fallbacks")
    if chain is None:
        return
    if chain == "default":
        raise BadRequest(refusal('fallbacks: "default"'))
    if not isinstance(chain, list) or not chain:
        raise BadRequest("fallbacks: Input should be a non-empty list or 'default'"
                         + FAKE_WORDING)
    for i, entry in enumerate(chain):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("model"), str):
            raise BadRequest(f"fallbacks.{i}.model: Field required{FAKE_WORDING}")
        for key, value in entry.items():
            if key not in _PLAYED and value is not None:
                raise BadRequest(refusal(f"fallbacks.{i}.{key}"))
        limit = entry.get("max_tokens")
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)
                                  or limit < 1):
            raise BadRequest(f"fallbacks.{i}.max_tokens: Input should be a whole number ≥ 1"
                             + FAKE_WORDING)
