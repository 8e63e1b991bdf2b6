"""Server-side fallback (`fallbacks`, beta `server-side-fallback-2026-06-01`), as the fake
plays it: when the requested model refuses, the next script step plays the first
fallback model; if it refuses too, the step after plays the next one, and so on.

From the SDK's `fallbacks` docstring and `BetaFallbackBlock` /
`BetaFallbackMessageIterationUsage` (platform.claude.com/docs/en/build-with-claude/
refusals-and-fallback#server-side-fallback):

- "Tried in order: if the first entry also declines, the second is tried";
- one `fallback` block per hop marks "the point in content where one model's output
  gives way to the next" (`from`: the model that declined, `to`: the next one,
  `trigger`: `{"type": "refusal", "category": ...}`); streamed like a server tool
  block, start and stop, no deltas;
- `usage.iterations`: a `message` entry for each declined hop, and a
  `fallback_message` entry, naming the serving `model`, for the hop that answered.
  "Whether a fallback model served the response is signalled by the presence of this
  entry". The reply's `model` is the model that answered (the last one tried); the
  top-level `usage` sums the hops (the fake's reading; compaction is the
  only entry the SDK says is left out).
- An entry's `max_tokens` replaces the request's for that attempt.

The fake refuses what it does not play (`refusals.check_fallbacks`): `fallbacks:
"default"` (the server's own chain), and an entry's `thinking`, `output_config` or
`speed`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .message import build_message
from .models import FakeModel
from .steps import Fault, Reply, Step

_COUNTS = ("input_tokens", "output_tokens", "cache_creation_input_tokens",
           "cache_read_input_tokens")


def refused(step: Step) -> bool:
    return isinstance(step, Reply) and step.resolved_stop_reason == "refusal"


def with_fallbacks(model: FakeModel, step: Reply, body: dict[str, Any],
                   next_step: Callable[[dict[str, Any]], Step]) -> dict[str, Any] | Fault:
    """The reply to `body` whose own model's `step` refused: each fallback in turn asks
    `next_step` for its step, until one answers or the chain ends."""
    message = build_message(model, step, body)
    content = list(message["content"])
    iterations = [_iteration("message", message)]
    declined, last = body["model"], message
    for entry in body["fallbacks"]:
        attempt = {**body, "model": entry["model"],
                   "max_tokens": entry.get("max_tokens") or body["max_tokens"]}
        answer = next_step(attempt)
        if isinstance(answer, Fault):
            return answer
        category = (last.get("stop_details") or {}).get("category")
        content.append({"type": "fallback", "from": {"model": declined},
                        "to": {"model": entry["model"]},
                        "trigger": {"type": "refusal", "category": category}})
        last = build_message(model, answer, attempt)
        content.extend(last["content"])
        declined = entry["model"]
        if not refused(answer):
            iterations.append({**_iteration("fallback_message", last), "model": entry["model"]})
            break
        iterations.append(_iteration("message", last))
    usage = {**last["usage"], **{key: sum(i[key] for i in iterations) for key in _COUNTS},
             "iterations": iterations}
    # `model` names the model that wrote the end of the reply: the SDK's own example
    # (examples/fallbacks.py) prints `message.model` as the server-side fallback's answer.
    return {**last, "id": message["id"], "model": declined, "content": content,
            "usage": usage}


def _iteration(kind: str, message: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": kind, **{key: message["usage"][key] for key in _COUNTS}}
