"""The client side of the memory tool (`memory_20250818`), for loops that run on the fake
(it works live just the same): Claude sends `tool_use`
commands (view, create, str_replace, insert, delete, rename) on paths under
`/memories`, and the client answers them from a folder of its own.

platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool: the tool is
client-side; "you control where and how the data is stored". The handler is the SDK's
`BetaLocalFilesystemMemoryTool` (anthropic.tools.memory), kept here rather than
rewritten: it refuses paths outside `/memories`, `..` escapes and symlinks out of the
folder, and writes files atomically.

    tool = memory_tool(folder)                  # pass tool.to_dict() in `tools=`
    result = answer_memory(block, tool)         # a tool_result for a memory tool_use

`tool` also runs as is in `client.beta.messages.tool_runner(tools=[tool], ...)`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anthropic.lib.tools import ToolError
from anthropic.tools.memory import BetaLocalFilesystemMemoryTool

__all__ = ["answer_memory", "memory_tool"]


def memory_tool(folder: str | Path) -> BetaLocalFilesystemMemoryTool:
    """A memory tool whose `/memories` is `folder/memories` (created, owner-only)."""
    return BetaLocalFilesystemMemoryTool(base_path=str(folder))


def answer_memory(block: Any, tool: BetaLocalFilesystemMemoryTool) -> dict[str, Any]:
    """The `tool_result` for one memory `tool_use` block (a dict or the SDK's block): the
    command's output, or its error with `is_error: true`. Never raises for a bad command
    or path: the model reads the error and can try again."""
    if hasattr(block, "model_dump"):
        block = block.model_dump(mode="json")
    try:
        output = tool.call(block.get("input") or {})
    except (ToolError, ValueError, OSError, NotImplementedError) as err:
        return {"type": "tool_result", "tool_use_id": block["id"], "content": str(err),
                "is_error": True}
    return {"type": "tool_result", "tool_use_id": block["id"], "content": output}
