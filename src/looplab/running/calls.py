"""Running one tool call: whatever happens, an `Outcome` the loop can send back.

Any exception (even `SystemExit`, or one whose `str()` raises), a timeout, a return value
the API cannot take: each becomes an `is_error` result whose text says what went wrong. A
tool that raises `KeyboardInterrupt` (Ctrl-C) is marked `outcome="interrupted"`.

Where a call runs is the tool's choice, as in the article's loop (`core.tools.answer_calls`
decides): by default here, `call_tool` in the loop's own thread (`breakpoint()` in a tool
stops right there); with a timeout, in a thread of its own that the loop stops waiting for
(`threads.call_in_thread`); with `isolate="process"`, in a child process killed with
everything it started at the deadline or on Ctrl-C (`process_calls.call_in_process`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from anthropic.lib.tools import ToolError as _SDKToolError

from ..i18n import worded
from .coroutines import run_to_end
from .output import Unsendable, describe, to_content


@dataclass
class Outcome:
    """What one call came to: the `tool_result` content and how the call ended."""

    result: Any
    is_error: bool
    outcome: str = "ran"
    """"ran", "not_run" (it never started) or "interrupted" (Ctrl-C while it ran)."""
    duration_s: float = 0.0
    abandoned: bool = False
    """It timed out in a thread that is still running (a thread cannot be killed)."""


class Runnable(Protocol):
    """What running a call needs of a tool (`looplab.core.tools.Tool` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def fn(self) -> Callable[..., Any]: ...
    @property
    def timeout_s(self) -> float | None: ...
    @property
    def isolate(self) -> str: ...


def call_tool(t: Runnable, input: Any) -> tuple[Any, bool, str]:
    """Run one call here and now: `(content, is_error, outcome)`. Never raises."""
    try:
        value = t.fn(**input)
        if inspect.iscoroutine(value):
            value = run_to_end(value)
        elif inspect.isawaitable(value):
            raise Unsendable(worded("the tool returned a {kind}, an awaitable that is not a "
                                    "coroutine; make it an async def, or return its result",
                                    kind=type(value).__name__))
        return to_content(value), False, "ran"
    except _SDKToolError as e:  # the tool chose the text the model sees
        try:
            return to_content(e.content), True, "ran"
        except Unsendable as bad:
            return str(bad), True, "ran"
    except Unsendable as e:
        return str(e), True, "ran"
    except KeyboardInterrupt:
        return interrupted(), True, "interrupted"
    except BaseException as e:  # noqa: B036 (SystemExit, a broken exception: never the loop's end)
        return describe(e), True, "ran"

# looplab's own reference, kept where a graded kernel drops the public name (grading/hiding.py)
_call_tool = call_tool


def interrupted() -> str:
    """The result of a call that Ctrl-C stopped while it ran."""
    return worded("interrupted: the run was stopped by the user (KeyboardInterrupt)")
