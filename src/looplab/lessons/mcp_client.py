"""Lesson 13's MCP client: a session with a local MCP server over stdio, usable from the
synchronous loop.

The SDK's client is asynchronous; `run_agent` is not. `McpConnection` keeps the session in
an event loop of its own, on one background thread, and hands each request to it. What it
returns is plain dicts in MCP's wire shape (`inputSchema`, `isError`), so a lesson can map
them to the Messages API's shape by hand.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from contextlib import AsyncExitStack
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from ..core.tools import Tool, ToolError
from ..i18n import current

SERVER = "looplab.lessons.mcp_server"


class McpConnection:
    """`with McpConnection() as mcp:` starts the server (`python -m …`) and initialises;
    `mcp = McpConnection().start()` … `mcp.close()` does the same across notebook cells."""

    def __init__(self, *args: str, module: str = SERVER) -> None:
        # the server speaks the host's language (its tools' descriptions and refusals)
        self.params = StdioServerParameters(command=sys.executable, args=["-m", module, *args],
                                            env={"LOOPLAB_LANG": current()})
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.session: ClientSession | None = None
        self.server_info: dict[str, Any] = {}
        self.ready = threading.Event()
        self.closing: asyncio.Event | None = None
        self.served: Any = None

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=60)

    async def _serve(self) -> None:
        """Open the transport and the session, wait until closed, close them: one task,
        as anyio's cancel scopes require."""
        self.closing = asyncio.Event()
        with open(os.devnull, "w") as quiet:  # the server's log is not the lesson's
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(stdio_client(self.params, quiet))
                self.session = await stack.enter_async_context(ClientSession(read, write))
                result = await self.session.initialize()
                self.server_info = result.server_info.model_dump(exclude_none=True)
                self.ready.set()
                await self.closing.wait()

    def __enter__(self) -> McpConnection:
        self.thread.start()
        self.served = asyncio.run_coroutine_threadsafe(self._serve(), self.loop)
        while not self.ready.wait(0.05):
            if self.served.done():
                self.served.result()  # raises what stopped the server from starting
        return self

    def __exit__(self, *exc: object) -> None:
        if self.closing is not None:
            self.loop.call_soon_threadsafe(self.closing.set)
        self.served.result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)

    def list_tools(self) -> list[dict[str, Any]]:
        """`tools/list`: each tool as `{"name", "description", "inputSchema"}`."""
        assert self.session is not None, "use McpConnection in a with block"
        listed = self._run(self.session.list_tools())
        return [{"name": t.name, "description": t.description or "",
                 "inputSchema": t.input_schema} for t in listed.tools]  # fmt: skip

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """`tools/call`: `{"content": [...text blocks...], "isError": bool}`."""
        assert self.session is not None, "use McpConnection in a with block"
        result = self._run(self.session.call_tool(name, arguments))
        content = [{"type": "text", "text": c.text} for c in result.content
                   if getattr(c, "type", "") == "text"]  # fmt: skip
        return {"content": content, "isError": bool(result.is_error)}

    start = __enter__

    def close(self) -> None:
        """Stop the server (what leaving the `with` block does)."""
        self.__exit__()

    def tools(self) -> list[Tool]:
        """The server's tools as looplab tools: each call goes to the server."""
        return [Tool(t["name"], t["description"], t["inputSchema"], self._caller(t["name"]))
                for t in self.list_tools()]  # fmt: skip

    def _caller(self, name: str) -> Any:
        def call(**arguments: Any) -> str:
            result = self.call_tool(name, arguments)
            text = "".join(block["text"] for block in result["content"])
            if result["isError"]:
                raise ToolError(text)
            return text
        return call
