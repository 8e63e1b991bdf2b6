"""Tool search (`defer_loading` tools, `tool_reference` blocks), as the fake plays it.

platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool: a tool defined
with `defer_loading: true` is "not included in initial system prompt. Only loaded when
returned via tool_reference from tool search" (the SDK's `defer_loading` docstring). So:

- a deferred tool counts no prompt tokens until a `tool_reference` names it: one in a
  `tool_search_tool_result` (the server tool `tool_search_tool_regex` /
  `tool_search_tool_bm25`, played by the script with `search_tools(...)`), or one in a
  `tool_result`'s content (a client-side search tool);
- the model cannot call a deferred tool no `tool_reference` has loaded: a script that
  does is a script error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def deferred(tools: Any) -> set[str]:
    """Names of the tools defined with `defer_loading: true`."""
    return {str(tool.get("name")) for tool in tools if isinstance(tool, Mapping)
            and tool.get("defer_loading") is True} if isinstance(tools, list) else set()


def loaded(blocks: Iterable[Any]) -> set[str]:
    """Tool names the `tool_reference` blocks in `blocks` (nested anywhere) load."""
    names: set[str] = set()
    stack = list(blocks)
    while stack:
        item = stack.pop()
        dump = getattr(item, "model_dump", None)
        if callable(dump):
            item = dump(mode="json")
        if isinstance(item, Mapping):
            if item.get("type") == "tool_reference" and isinstance(item.get("tool_name"), str):
                names.add(item["tool_name"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return names


def loaded_in_history(body: Mapping[str, Any]) -> set[str]:
    messages = body.get("messages")
    return loaded(messages) if isinstance(messages, list) else set()


def hidden_tools(body: Mapping[str, Any]) -> set[str]:
    """The deferred tools of `body` that nothing in its history has loaded yet."""
    waiting = deferred(body.get("tools"))
    return waiting - loaded_in_history(body) if waiting else waiting
