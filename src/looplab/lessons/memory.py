"""Lesson 17's memory: the API's memory tool in `run_agent`, every write logged with its source.

    log: list[Write] = []
    monday = Session("monday", log)
    run_agent(client, task, tools=[memory(folder, monday), *other_tools])

`memory(folder, session)` is a looplab `Tool` whose definition is the API's own memory tool
(`{"type": "memory_20250818", "name": "memory"}`): the model sends its commands (view,
create, str_replace, insert, delete, rename) as `tool_use`, and the SDK's handler
(`looplab.fake.memory`) answers them from `folder`, never outside it. Each command that
changes memory is appended to the session's log as a `Write`: which session made it, what
it wrote, and what untrusted text the session had read before it (`Session.read`, filled
by `web_page`). The note the model writes may say where a fact came from; the log says
it as the harness saw it, which a page cannot rewrite.

`gate(call, read)`, when given, is asked before each command: `None` lets it run; a string
refuses it, and is the `is_error` result the model reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.tools import Tool, ToolError, tool
from ..fake.memory import memory_tool
from ..i18n import worded

__all__ = ["CHANGES", "MEMORY_TOOL", "MemoryTool", "Session", "Write", "memory", "web_page"]

MEMORY_TOOL = {"type": "memory_20250818", "name": "memory"}
CHANGES = ("create", "str_replace", "insert", "delete", "rename")
"""The memory commands that change what is stored (`view` only reads)."""

Gate = Callable[[dict[str, Any], list[str]], "str | None"]


@dataclass(frozen=True)
class Write:
    """One command that changed memory, as the harness saw it."""

    number: int
    session: str
    command: str
    path: str
    text: str
    read: tuple[str, ...]
    """The untrusted sources the session had read before this write (`page <url>`)."""

    @property
    def source(self) -> str:
        return ", ".join(self.read) if self.read else worded("the user")


@dataclass
class Session:
    """One conversation with its own history; `log` is shared by every session."""

    name: str
    log: list[Write]
    read: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MemoryTool(Tool):
    """A `Tool` sent as the API's memory tool rather than as a custom tool."""

    def definition(self) -> dict[str, Any]:
        return dict(MEMORY_TOOL)


def _written(command: Mapping[str, Any]) -> str:
    """The text a command puts into memory (a delete or rename: its paths)."""
    for key in ("file_text", "new_str", "insert_text"):
        if isinstance(command.get(key), str):
            return str(command[key])
    return " -> ".join(str(command[k]) for k in ("old_path", "new_path") if k in command)


def memory(folder: str | Path, session: Session, gate: Gate | None = None) -> MemoryTool:
    """The memory tool for one session: commands answered from `folder`, writes logged."""
    handler = memory_tool(folder)

    def run(**fields: Any) -> str:
        command = dict(fields)  # the tool_use input: {"command": "view", "path": ...}
        if gate is not None:
            refused = gate({"name": "memory", "input": dict(command)}, list(session.read))
            if refused is not None:
                raise ToolError(str(refused))
        output = handler.call(command)  # a bad command or path raises: an is_error result
        if command.get("command") in CHANGES:
            path = str(command.get("path") or command.get("old_path") or "")
            session.log.append(Write(len(session.log) + 1, session.name,
                                     str(command["command"]), path, _written(command),
                                     tuple(session.read)))
        return str(output)

    return MemoryTool("memory", "the API's memory tool", {"type": "object"}, run)


def web_page(pages: Mapping[str, str], session: Session) -> Tool:
    """`fetch_page(url)`: a page of `pages`; what it returns is untrusted, so the session
    remembers having read it."""

    def fetch_page(url: str) -> str:
        """Fetch a web page and return its text.

        Args:
            url: the page's address
        """
        if url not in pages:
            raise ToolError(worded("404: no page at {url}", url=url))
        session.read.append(worded("page {url}", url=url))
        return pages[url]

    return tool(fetch_page)
