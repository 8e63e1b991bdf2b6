"""Running an async tool's coroutine to its end, in the thread that called the tool.

On a pool thread no event loop runs: `asyncio.run`. Where no thread can start (Pyodide,
in the browser), the call runs in the caller, inside the event loop that runs the
notebook's cell, where `asyncio.run` refuses. There Pyodide's `run_sync` waits for the
coroutine (with JavaScript Promise Integration, as current browsers have); elsewhere a
private loop runs it while the caller's loop waits, as a plain function call would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


def run_to_end(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run `coroutine` here and return its value (or raise what it raises)."""
    outer = asyncio._get_running_loop()
    if outer is None:
        return asyncio.run(coroutine)
    run_sync = _pyodide_run_sync()
    if run_sync is not None:
        return run_sync(coroutine)
    asyncio._set_running_loop(None)  # asyncio.run refuses inside a running loop
    try:
        return asyncio.run(coroutine)
    finally:
        asyncio._set_running_loop(outer)


def _pyodide_run_sync() -> Any:
    """Pyodide's `run_sync` where it can wait here, else None."""
    try:
        from pyodide.ffi import can_run_sync, run_sync  # type: ignore[import-not-found]
    except ImportError:
        return None
    return run_sync if can_run_sync() else None
