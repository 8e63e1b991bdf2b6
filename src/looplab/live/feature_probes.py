"""The feature probes: small requests to the parts of the loop the API now runs itself
(context editing, compaction, task budgets, tool search, the memory tool, effort,
fallbacks), each used once as the docs show and, where the fake refuses a misuse, misused.

An accepted probe may name its `effect`: what the server did that does not depend on the
model's words (the edits it applied, a `compaction` block), so a live run shows where the
fake plays a feature differently, not only where it refuses differently.
"""

from __future__ import annotations

import copy
from typing import Any

from .probes import (
    BOTH,
    CALL,
    PARALLEL,
    RESULT,
    TASK,
    THINKING,
    TOOLS,
    Body,
    Probe,
    Send,
    text,
    user,
)

CONTEXT = "context-management-2025-06-27"
QUESTIONS = ("Which test fails most often in a login suite? One line.",
             "Why does that one fail? One line.",
             "How is it fixed? One line.")


def applied_edits(reply: Any) -> str:
    """The edits the server applied, each with what it counts (never the token counts,
    which are the tokenizer's)."""
    management = getattr(reply, "context_management", None)
    edits = getattr(management, "applied_edits", None) or []
    shown = []
    for edit in edits:
        counts = {key: value for key, value in edit.to_dict().items()
                  if key.startswith("cleared_") and key != "cleared_input_tokens"}
        shown.append(" ".join([edit.type, *(f"{k}={v}" for k, v in sorted(counts.items()))]))
    return "applied_edits: " + ("; ".join(shown) or "none")


def blocks(reply: Any) -> str:
    """The types of the reply's content blocks: a `compaction` block is the server's."""
    kinds = [block.type for block in reply.content]
    return "compaction block first" if kinds[:1] == ["compaction"] else "no compaction block"


def beta(betas: list[str], messages: list[dict[str, Any]], **extra: Any) -> Body:
    """A probe request to the beta endpoint, with the probe tools."""
    return {"max_tokens": 64, "tools": TOOLS, "messages": copy.deepcopy(messages),
            "betas": betas, **extra}


def sent(request: Body) -> Any:
    return lambda send: copy.deepcopy(request)


def thinking_turns(send: Send) -> Body | str:
    """Three questions, each answered with thinking by the endpoint itself (its signed
    blocks), then a fourth sent with `clear_thinking` keeping the newest turn."""
    messages: list[dict[str, Any]] = []
    for question in QUESTIONS[:2]:
        messages.append({"role": "user", "content": question})
        reply = send({"max_tokens": 2048, "thinking": THINKING,
                      "messages": copy.deepcopy(messages), "betas": [CONTEXT]})
        messages.append({"role": "assistant",
                         "content": [block.to_dict() for block in reply.content]})
    messages.append({"role": "user", "content": QUESTIONS[2]})
    for content in (message["content"] for message in messages[1::2]):
        if not any(block.get("type") == "thinking" for block in content):
            kinds = ", ".join(str(block.get("type")) for block in content) or "no blocks"
            return f"a setup reply had no thinking block to clear ({kinds})"
    return {"max_tokens": 2048, "thinking": THINKING, "messages": messages, "betas": [CONTEXT],
            "context_management": {"edits": [
                {"type": "clear_thinking_20251015",
                 "keep": {"type": "thinking_turns", "value": 1}}]}}


ASKED = user(BOTH["content"][0], BOTH["content"][1], text("Which file holds the bug?"))
HISTORY = [TASK, CALL, RESULT, PARALLEL, ASKED]
CLEAR_TOOL_USES = {"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses",
                                                                   "value": 2},
                   "keep": {"type": "tool_uses", "value": 1}}
DEFERRED = [{**tool, "defer_loading": True} for tool in TOOLS]
REGEX = {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
FEATURE_PROBES: tuple[Probe, ...] = (
    Probe("clear_tool_uses", "feat", "three tool uses, cleared past two, the newest kept",
          sent(beta([CONTEXT], HISTORY, context_management={"edits": [CLEAR_TOOL_USES]})),
          effect=applied_edits),
    Probe("clear_thinking", "feat", "two thinking turns, the newest kept (its own blocks)",
          thinking_turns, setups=2, effect=applied_edits),
    Probe("clear_thinking_off", "feat", "thinking blocks cleared with thinking off",
          sent(beta([CONTEXT], [TASK], context_management={"edits": [
              {"type": "clear_thinking_20251015"}]}))),
    Probe("compact_below", "feat", "server-side compaction, the prompt under its trigger",
          sent(beta(["compact-2026-01-12"], [TASK], context_management={"edits": [
              {"type": "compact_20260112", "trigger": {"type": "input_tokens",
                                                       "value": 50_000}}]})),
          effect=blocks),
    Probe("compact_low_trigger", "feat", "a compaction trigger under the 50,000 minimum",
          sent(beta(["compact-2026-01-12"], [TASK], context_management={"edits": [
              {"type": "compact_20260112", "trigger": {"type": "input_tokens",
                                                       "value": 1_000}}]}))),
    Probe("compact_now", "feat", "compaction on demand: the block alone",
          sent(beta(["compact-2026-09-04"], HISTORY, compaction={"type": "summarize"})),
          effect=blocks),
    Probe("task_budget", "feat", "a task budget of 20,000 tokens",
          sent(beta(["task-budgets-2026-03-13"], [TASK], output_config={
              "task_budget": {"type": "tokens", "total": 20_000}}))),
    Probe("task_budget_overdrawn", "feat", "a task budget with more remaining than its total",
          sent(beta(["task-budgets-2026-03-13"], [TASK], output_config={
              "task_budget": {"type": "tokens", "total": 20_000, "remaining": 30_000}}))),
    Probe("tool_search", "feat", "every tool deferred behind the regex tool search",
          sent({"max_tokens": 64, "tools": [REGEX, *DEFERRED], "messages": [TASK]})),
    Probe("deferred_no_search", "feat", "every tool deferred and no tool search to load one",
          sent({"max_tokens": 64, "tools": DEFERRED, "messages": [TASK]})),
    Probe("memory_tool", "feat", "the memory tool beside the probe tools",
          sent({"max_tokens": 64, "messages": [TASK], "tools": [
              *TOOLS, {"type": "memory_20250818", "name": "memory"}]})),
    Probe("effort_low", "feat", 'output_config.effort "low"',
          sent({"max_tokens": 64, "tools": TOOLS, "messages": [TASK],
                "output_config": {"effort": "low"}})),
    Probe("effort_unknown", "feat", 'output_config.effort "ultra", a value the API lacks',
          sent({"max_tokens": 64, "tools": TOOLS, "messages": [TASK],
                "output_config": {"effort": "ultra"}})),
    Probe("fallbacks", "feat", "a fallback model named, the first model answering",
          sent(beta(["server-side-fallback-2026-06-01"], [TASK],
                    fallbacks=[{"model": "claude-haiku-4-5"}]))),
)
