"""Lessons 05 and 12: the loop of lesson 04 with the API's own server-side features in each
request (a task budget, context editing), to run beside looplab's client-side versions.

`run_agent` sends `client.messages.create`; these features are beta parameters of
`client.beta.messages.create`, so `run_beta` is the hand loop once more: send, append the
reply, answer every `tool_use` (looplab's `answer_calls`, the same as `run_agent`'s),
until the model stops asking for tools. Its `turns` are `Turn`s, so looplab's token plots
draw it next to a `RunResult`; `replies` keep what the server said about each request
(`context_management`, `usage`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import anthropic

from ..core.loop import configured_model
from ..core.result import ToolCall, Turn
from ..core.tools import _answer_calls, as_tools
from ..fake import FunctionModel, say
from ..fake.models import Request
from ..fake.steps import StepLike
from ..i18n import _
from .long_task import log_reader, summary_of

RESERVE = 1_500
"""Tokens `budget_reader` keeps for its answer: below this countdown it wraps up."""


@dataclass
class BetaRun:
    """The outcome of `run_beta`: the whole history, one `Turn` per request, each reply."""

    messages: list[dict[str, Any]]
    turns: list[Turn] = field(default_factory=list)
    replies: list[Any] = field(default_factory=list)

    @property
    def stop_reason(self) -> str | None:
        return self.turns[-1].stop_reason if self.turns else None


def run_beta(client: anthropic.Anthropic, task: str, *, tools: Iterable[Any],
             model: str | None = None, max_turns: int = 30, max_tokens: int = 1024,
             **server_side: Any) -> BetaRun:
    """Lesson 04's loop; each request is `client.beta.messages.create(model=..., tools=...,
    messages=..., **server_side)` (e.g. `betas=[...]`, `output_config={...}`). `model`
    defaults to `LOOPLAB_MODEL` or `MODEL`, as in `run_agent`."""
    by_name, definitions = as_tools(tools)
    run = BetaRun([{"role": "user", "content": task}])
    for index in range(1, max_turns + 1):
        request: dict[str, Any] = {
            "model": model or configured_model(), "max_tokens": max_tokens,
            "messages": run.messages,
            "tools": [*(t.definition() for t in by_name.values()), *definitions]}
        reply = client.beta.messages.create(**request, **server_side)
        content: list[dict[str, Any]] = [block.to_dict() for block in reply.content]
        run.messages.append({"role": "assistant", "content": content})
        run.replies.append(reply)
        run.turns.append(_turn(index, reply, content, run.turns))
        calls = [ToolCall(str(b["id"]), str(b["name"]), b["input"]) for b in content
                 if b["type"] == "tool_use"]
        if reply.stop_reason != "tool_use" or not calls:
            break
        answered = _answer_calls(calls, by_name, timeout_s=None)
        run.turns[-1].tool_calls = answered
        run.messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": c.id, "content": c.result,
             **({"is_error": True} if c.is_error else {})} for c in answered]})
    return run


def _turn(index: int, reply: Any, content: list[dict[str, Any]], before: list[Turn]) -> Turn:
    usage = reply.usage
    write = usage.cache_creation_input_tokens or 0
    read = usage.cache_read_input_tokens or 0
    sent = usage.input_tokens + write + read
    return Turn(index=index, messages_sent=2 * index - 1, input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens, cache_creation_input_tokens=write,
                cache_read_input_tokens=read,
                cumulative_input=sent + (before[-1].cumulative_input if before else 0),
                stop_reason=reply.stop_reason, content=content)


def budget_reader(request: Request) -> StepLike:
    """Lesson 12's log reader, pacing itself by the task budget's countdown as the docs
    say the live model does: with fewer than `RESERVE` tokens left, it stops reading and
    reports how far it got."""
    remaining = request.task_budget_remaining
    step = log_reader(request)
    if (remaining is not None and remaining < RESERVE and isinstance(step, dict)
            and step.get("type") == "tool_use"):
        read = int(step["input"]["n"]) - 1
        return say(_("Budget nearly spent, so I stop here. {summary}").format(
            summary=summary_of(read)))
    return step


def budget_reader_model() -> FunctionModel:
    return FunctionModel(budget_reader)


__all__ = ["RESERVE", "BetaRun", "budget_reader", "budget_reader_model", "run_beta"]
