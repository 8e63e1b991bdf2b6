"""Lesson 18's plan, then act: the plan tool, when a step failed, and what a way of working spent.

    reply = client.messages.create(..., tools=[PLAN_TOOL], tool_choice=PLAN_CHOICE)
    steps = reply.content[0].input["steps"]        # the API made the model call make_plan
    result = run_agent(client, step, tools=tools)  # each step: the same loop, its own history
    why = step_failed(result)                      # None, or why the step did not get done

`tool_choice={"type": "tool", "name": "make_plan"}` makes the model answer with a call of
that tool and nothing else, so the plan arrives as the call's `input`, shaped by the tool's
`input_schema` rather than parsed out of prose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.result import RunResult
from ..i18n import worded

__all__ = ["PLAN_CHOICE", "PLAN_TOOL", "Spent", "step_failed"]

PLAN_TOOL: dict[str, Any] = {
    "name": "make_plan",
    "description": "Record the plan: the steps that remain, in order, each one instruction "
                   "a worker with the repository's tools can carry out on its own.",
    "input_schema": {
        "type": "object",
        "properties": {"steps": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
        "required": ["steps"],
    },
}
PLAN_CHOICE = {"type": "tool", "name": "make_plan"}


def step_failed(result: RunResult) -> str | None:
    """Why a step's run did not get its step done, or `None` when it did: the run stopped
    before `end_turn` (a gate, an error), or its last tool call came back `is_error`."""
    if not result.done:
        return str(result)
    calls = [c for turn in result.turns for c in turn.tool_calls]
    if calls and calls[-1].is_error:
        return worded("{tool} failed: {error}", tool=calls[-1].name, error=calls[-1].result)
    return None


@dataclass
class Spent:
    """Requests and tokens, added up over every request a way of working sent."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    largest: int = 0
    """The input tokens of the largest request: the history one request had to carry."""

    def reply(self, usage: Any) -> None:
        """Count one request by its reply's `usage`."""
        sent = int(getattr(usage, "input_tokens", 0) or 0)
        self.requests += 1
        self.input_tokens += sent
        self.output_tokens += int(getattr(usage, "output_tokens", 0) or 0)
        self.largest = max(self.largest, sent)

    def run(self, result: RunResult) -> None:
        """Count every request of a `run_agent` run."""
        self.requests += len(result.turns)
        self.input_tokens += result.usage.get("input_tokens", 0)
        self.output_tokens += result.usage.get("output_tokens", 0)
        self.largest = max([self.largest, *(t.input_tokens for t in result.turns)])
