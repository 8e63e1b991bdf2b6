"""Lesson 13's MCP connection ends what it started, on every path: 50 connections opened
and closed leave no fd, thread or process; a server that never answers `initialize` is
stopped after the start timeout; a request that takes too long is abandoned. Each server
takes a second or more to start, so the whole file is slow."""

from __future__ import annotations

import threading
import time

import psutil
import pytest

from looplab.lessons.mcp_client import McpConnection

pytestmark = pytest.mark.slow
ME = psutil.Process()


def left_behind() -> tuple[int, int, list[psutil.Process]]:
    """(open fds, threads, live child processes), once exiting threads have ended."""
    time.sleep(0.3)
    children = [p for p in ME.children(recursive=True)
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    return ME.num_fds(), threading.active_count(), children


def nothing_added(fds: int, threads: int, children: list[psutil.Process]) -> None:
    """No fd, thread or child process more than before. Fewer is not a leak: the test runs in
    a worker process that other tests' leftovers (a pipe, a forkserver) may close meanwhile."""
    now_fds, now_threads, now_children = left_behind()
    assert now_fds <= fds and now_threads <= threads, (now_fds, fds, now_threads, threads)
    assert set(now_children) <= set(children), (now_children, children)


def test_fifty_connections_opened_and_closed_leave_nothing_behind() -> None:
    with McpConnection() as mcp:  # the first: imports and caches that stay are not leaks
        mcp.list_tools()
    fds, threads, children = left_behind()
    for n in range(50):
        if n % 2:
            with McpConnection() as mcp:
                assert mcp.list_tools()
        else:
            McpConnection().start().close()
    nothing_added(fds, threads, children)


def test_a_server_that_never_answers_initialize_is_stopped_after_the_start_timeout() -> None:
    fds, threads, children = left_behind()
    started = time.monotonic()
    silent = McpConnection(module="json.tool", start_timeout_s=1)  # reads stdin, says nothing
    with pytest.raises(TimeoutError, match="did not answer initialize within 1 s"):
        silent.start()
    assert time.monotonic() - started < 15
    nothing_added(fds, threads, children)
    silent.close()  # closing again is harmless


def test_a_server_that_fails_to_start_leaves_nothing_behind() -> None:
    fds, threads, children = left_behind()
    with pytest.raises(Exception):  # noqa: B017 - whatever the SDK raises for a dead server
        McpConnection(module="looplab.no_such_module", start_timeout_s=20).start()
    nothing_added(fds, threads, children)


def test_a_request_that_takes_too_long_is_abandoned_and_the_connection_still_closes() -> None:
    fds, threads, children = left_behind()
    mcp = McpConnection(call_timeout_s=0.000_001).start()
    with pytest.raises(TimeoutError, match="did not answer tools/list within"):
        mcp.list_tools()
    mcp.close()
    with pytest.raises(RuntimeError, match="not open"):
        mcp.list_tools()
    nothing_added(fds, threads, children)
