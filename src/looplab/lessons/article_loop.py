"""The article's minimal loop (§7), as written there, with its client, tools and clock passed in.

    status, messages = run_agent(client, task, tools=demo_tools(), clock=clock)

It has the contract of lesson 04's exercise, so lesson 08 can run its gate tests on a loop
written by hand. It keeps the article's two gaps on purpose, and the tests find both: the
token budget adds only `input_tokens + output_tokens` (cache tokens are not seen), and
the repeat gate stops before its turn's calls are answered (a resumed history needs
`close_dangling` first).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import anthropic

from ..core.loop import MODEL
from ..core.tools import Tool


def run_tool(block: Any, impls: dict[str, Tool]) -> dict[str, Any]:
    """Run one `tool_use` block. Success or failure, return a `tool_result` with its id."""
    try:
        output = impls[block.name](**block.input)
        return {"type": "tool_result", "tool_use_id": block.id, "content": output}
    except Exception as e:  # the error goes back to the model, and the loop goes on
        return {"type": "tool_result", "tool_use_id": block.id,
                "content": f"{type(e).__name__}: {e}", "is_error": True}  # fmt: skip


def run_agent(
    client: anthropic.Anthropic,
    task: str,
    *,
    tools: Sequence[Tool],
    max_turns: int = 10,
    token_budget: int = 200_000,
    timeout_s: float = 300,
    max_repeats: int = 3,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[str, list[dict[str, Any]]]:
    """The article's loop: four gates, then request, append, fork on `stop_reason`, tools."""
    definitions: Any = [t.definition() for t in tools]
    impls = {t.name: t for t in tools}
    messages: list[Any] = [{"role": "user", "content": task}]
    used, start = 0, clock()
    seen: dict[tuple[str, str], int] = {}
    for _ in range(max_turns):
        if used >= token_budget:
            return "stopped: token_budget", messages
        if clock() - start >= timeout_s:
            return "stopped: timeout", messages
        response = client.messages.create(
            model=MODEL, max_tokens=16000, tools=definitions, messages=messages
        )
        used += response.usage.input_tokens + response.usage.output_tokens  # no cache fields
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason == "end_turn":
            return "done", messages
        if response.stop_reason != "tool_use":  # max_tokens, refusal, ...: stopped, not done
            return f"stopped: {response.stop_reason}", messages
        calls = [b for b in response.content if b.type == "tool_use"]
        for b in calls:
            key = (b.name, json.dumps(b.input, sort_keys=True))
            seen[key] = seen.get(key, 0) + 1
            if seen[key] >= max_repeats:  # stops before this turn's calls are answered
                return f"stopped: repeated {b.name}", messages
        messages.append({"role": "user", "content": [run_tool(b, impls) for b in calls]})
    return "stopped: max_turns", messages
