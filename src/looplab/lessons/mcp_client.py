"""Lesson 13's MCP client: a session with a local MCP server over stdio, usable from the
synchronous loop.

The SDK's client is asynchronous; `run_agent` is not. `McpConnection` keeps the session in
an event loop of its own, on one background thread, and hands each request to it. What it
returns is plain dicts in MCP's wire shape (`inputSchema`, `isError`), so a lesson can map
them to the Messages API's shape by hand.

A server is another process, and it can hang: starting waits at most `start_timeout_s`
for the server to answer `initialize`, and each request at most `call_timeout_s`. On
every way out (closed, timed out, failed to start) the server process is ended, the
event loop closed and its thread joined: nothing is left behind.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import sys
import threading
import time
from contextlib import AsyncExitStack
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from ..core.tools import Tool, ToolError
from ..i18n import current

SERVER = "looplab.lessons.mcp_server"
CLOSE_S = 10.0
"""How long closing waits for the session to end on its own before cancelling it."""


class McpConnection:
    """`with McpConnection() as mcp:` starts the server (`python -m …`) and initialises;
    `mcp = McpConnection().start()` … `mcp.close()` does the same across notebook cells."""

    def __init__(self, *args: str, module: str = SERVER, start_timeout_s: float = 30,
                 call_timeout_s: float = 30) -> None:  # fmt: skip
        # the server speaks the host's language (its tools' descriptions and refusals)
        self.params = StdioServerParameters(command=sys.executable, args=["-m", module, *args],
                                            env={"LOOPLAB_LANG": current()})
        self.start_timeout_s, self.call_timeout_s = start_timeout_s, call_timeout_s
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="mcp connection")
        self.session: ClientSession | None = None
        self.server_info: dict[str, Any] = {}
        self.ready = threading.Event()
        self.closing: asyncio.Event | None = None
        self.served: concurrent.futures.Future[None] | None = None
        self.task: asyncio.Task[None] | None = None

    def _run(self, coroutine: Any, what: str) -> Any:
        """Run `coroutine` on the connection's loop; at most `call_timeout_s` seconds."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result(timeout=self.call_timeout_s)
        except concurrent.futures.TimeoutError:
            future.cancel()  # the request is abandoned on the loop too, not left running
            raise TimeoutError(f"the MCP server did not answer {what} within "
                               f"{self.call_timeout_s:g} s") from None

    def _session(self) -> ClientSession:
        if self.session is None or self.loop.is_closed():
            raise RuntimeError("the MCP connection is not open: start it first "
                               "(with McpConnection() as mcp:, or mcp.start())")
        return self.session

    async def _serve(self) -> None:
        """Open the transport and the session, wait until closed, close them: one task,
        as anyio's cancel scopes require."""
        self.task = asyncio.current_task()
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
        deadline = time.monotonic() + self.start_timeout_s
        while not self.ready.wait(0.05):
            if self.served.done():
                try:
                    self.served.result()  # raises what stopped the server from starting
                finally:
                    self._end()
            if time.monotonic() >= deadline:
                self._end()
                raise TimeoutError(f"the MCP server ({' '.join(self.params.args)}) did not "
                                   f"answer initialize within {self.start_timeout_s:g} s; "
                                   "it was stopped")
        return self

    def __exit__(self, *exc: object) -> None:
        self._end()

    def _end(self) -> None:
        """End the session and the server process, stop and close the loop, join its
        thread. Safe to call more than once, and from any state."""
        if self.loop.is_closed():
            return
        if self.thread.is_alive():
            stopping = asyncio.run_coroutine_threadsafe(self._stop_serving(), self.loop)
            with contextlib.suppress(Exception):
                stopping.result(timeout=2 * CLOSE_S)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=CLOSE_S)
        if not self.thread.is_alive():
            self.loop.close()  # its selector and self-pipe: the fds a connection holds
        self.session = None

    async def _stop_serving(self) -> None:
        """Let the session end (the server is told and stopped by `stdio_client`); if it
        does not within `CLOSE_S` (a server stuck in initialize), cancel it."""
        task = self.task
        if task is None or task.done():
            return
        if self.closing is not None:
            self.closing.set()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(task), CLOSE_S if self.ready.is_set() else 0)
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    def list_tools(self) -> list[dict[str, Any]]:
        """`tools/list`: each tool as `{"name", "description", "inputSchema"}`."""
        listed = self._run(self._session().list_tools(), "tools/list")
        return [{"name": t.name, "description": t.description or "",
                 "inputSchema": t.input_schema} for t in listed.tools]  # fmt: skip

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """`tools/call`: `{"content": [...text blocks...], "isError": bool}`."""
        result = self._run(self._session().call_tool(name, arguments), f"tools/call {name}")
        content = [{"type": "text", "text": c.text} for c in result.content
                   if getattr(c, "type", "") == "text"]  # fmt: skip
        return {"content": content, "isError": bool(result.is_error)}

    start = __enter__

    def close(self) -> None:
        """Stop the server (what leaving the `with` block does)."""
        self._end()

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
