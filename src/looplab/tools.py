"""Tools: what the model may ask for, and running those calls so that none can crash the loop.

    @tool
    def read_file(path: str) -> str:
        '''Read a text file of the repository. Call it to see source code or logs.'''
        ...

Every call gets a `tool_result`, whatever happens: input that fails the tool's
`input_schema`, an unknown tool name, an exception, a timeout — each becomes an
`is_error` result whose text says what went wrong and what to do next.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import anthropic
from anthropic.lib.tools import ToolError as _SDKToolError
from anthropic.lib.tools._beta_functions import BaseFunctionTool

from .result import ToolCall


class ToolError(_SDKToolError):
    """Raise it inside a tool to choose the `is_error` text the model sees.

        raise ToolError("no such module 'logn'; modules with tests: login, signup")

    It is the SDK's own `ToolError`, so tools written for `client.beta.messages.tool_runner`
    behave the same here.
    """


@dataclass(frozen=True)
class Tool:
    """A function the model can call, with the definition the API needs.

    Calling a `Tool` object calls the function directly (handy in a notebook).
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    fn: Callable[..., Any] = field(repr=False)
    timeout_s: float | None = None
    """Overrides `Limits.tool_timeout_s` for this tool (`None`: use the run's limit)."""

    def definition(self) -> dict[str, Any]:
        """The entry for the request's `tools` list."""
        return {
            "name": self.name, "description": self.description, "input_schema": self.input_schema
        }

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None, timeout_s: float | None = None
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout_s: float | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a `Tool` from a function: `@tool` or `@tool(timeout_s=5)`.

    The name is the function's name, the description its docstring, and `input_schema`
    comes from the signature and type hints (the SDK's `beta_tool`, which uses pydantic;
    `Args:` lines of the docstring become the parameters' descriptions).
    """

    def make(fn: Callable[..., Any]) -> Tool:
        if not callable(fn):
            raise TypeError(f"@tool needs a function, got {type(fn).__name__}")
        try:
            unnamed = [p.name for p in inspect.signature(fn).parameters.values()
                       if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
            if unnamed:
                raise ValueError(f"{', '.join(unnamed)} cannot be passed by name")
            sdk_tool = anthropic.beta_tool(fn, name=name, description=description)
        except Exception as e:  # e.g. a type pydantic cannot describe in JSON Schema
            raise TypeError(
                f"cannot make a tool from {getattr(fn, '__name__', fn)!r}: {e}. A tool takes "
                "named arguments only (the model sends one JSON object), e.g. "
                "def read_file(path: str) -> str"
            ) from e
        return Tool(
            name=sdk_tool.name,
            description=sdk_tool.description,
            input_schema=dict(sdk_tool.input_schema),
            fn=fn,
            timeout_s=timeout_s,
        )

    return make if fn is None else make(fn)


def as_tools(
    tools: Iterable[Tool | Callable[..., Any] | dict[str, Any]],
) -> tuple[dict[str, Tool], list[dict[str, Any]]]:
    """Runnable tools by name (plain functions wrapped with `tool`), and the dict
    definitions passed as they are (server tools: the API runs those, not the loop)."""
    if isinstance(tools, (str, bytes, Mapping, Tool)) or not isinstance(tools, Iterable):
        raise TypeError(
            f"tools must be a list of functions or @tool objects, got {type(tools).__name__}"
        )
    by_name: dict[str, Tool] = {}
    definitions: list[dict[str, Any]] = []
    for item in tools:
        if isinstance(item, dict):
            definitions.append(item)
            continue
        if isinstance(item, BaseFunctionTool):  # an SDK @beta_tool: the same function inside
            item = Tool(item.name, item.description, dict(item.input_schema), item.func)
        made = item if isinstance(item, Tool) else tool(item)
        if made.name in by_name:
            raise ValueError(f"two tools are named {made.name!r}; tool names must be unique")
        by_name[made.name] = made
    return by_name, definitions


# -- running calls ----------------------------------------------------------------------

_local = threading.local()


def time_left() -> float | None:
    """Seconds the loop still waits for the tool call running in this thread.

    `None` outside a loop or when the call has no timeout. `run_subprocess` uses it so
    that a subprocess dies when the loop gives up on it.
    """
    deadline: float | None = getattr(_local, "deadline", None)
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _error_text(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


@functools.lru_cache(maxsize=256)
def _validator(schema: str) -> Any:
    """A compiled validator per schema (JSON text as the cache key): built once, not per call."""
    import jsonschema  # type: ignore[import-untyped]  # imported on first use: slow to import

    return jsonschema.Draft202012Validator(json.loads(schema))


def _validation_error(t: Tool, input: Any) -> str | None:
    """What is wrong with `input` for `t`, or `None` when it fits the schema."""
    validator = _validator(json.dumps(t.input_schema, sort_keys=True))
    errors = sorted(validator.iter_errors(input), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    lines = []
    for e in errors:
        where = "/".join(str(p) for p in e.absolute_path)
        lines.append(f"- {where}: {e.message}" if where else f"- {e.message}")
    schema = json.dumps(t.input_schema, ensure_ascii=False)
    return (
        f"invalid input for {t.name}:\n" + "\n".join(lines) + "\n"
        f"Call {t.name} again with input that matches its input_schema: {schema}"
    )


def as_content(value: Any) -> Any:
    """A tool's return value as `tool_result` content: text, or content blocks as they are."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(b, dict) and "type" in b for b in value):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _call(t: Tool, input: Any) -> tuple[Any, bool]:
    """Run one call; `(content, is_error)`. Never raises."""
    try:
        value = t.fn(**input)
        if inspect.isawaitable(value):
            value = asyncio.run(_await(value))
        return as_content(value), False
    except _SDKToolError as e:
        return as_content(e.content), True
    except Exception as e:  # the loop must not crash on a tool
        return _error_text(e), True


async def _await(value: Any) -> Any:
    return await value


def _refusal(c: ToolCall, tools: Mapping[str, Tool]) -> str | None:
    """Why `c` cannot run (unknown tool, bad input), or `None` when it can."""
    t = tools.get(c.name)
    if t is None:
        names = ", ".join(tools) or "(none)"
        return f"unknown tool {c.name!r}. Available tools: {names}. Call one of these."
    try:
        return _validation_error(t, c.input)
    except Exception as e:  # a broken hand-written schema
        return f"cannot check the input of {c.name}: {_error_text(e)}"


def run_calls(
    calls: Sequence[ToolCall],
    tools: Mapping[str, Tool],
    *,
    timeout_s: float | None,
    clock: Callable[[], float] = time.monotonic,
) -> list[ToolCall]:
    """Run `calls` concurrently and fill in each one's result, in place and in call order.

    Each call runs in its own daemon thread. A Python thread cannot be killed: a call that
    overruns its timeout gets an `is_error` result at once, and its thread runs on in the
    background until the function returns (that late result is thrown away). Subprocess
    tools should use `run_subprocess`, which kills the whole process group on time.
    """
    lock = threading.Lock()  # a late worker must not overwrite a timeout result
    running: list[tuple[ToolCall, threading.Event, float | None]] = []
    for c in calls:
        problem = _refusal(c, tools)
        if problem is not None:
            c.result, c.is_error, c.outcome = problem, True, "not_run"
            continue
        t = tools[c.name]
        limit = t.timeout_s if t.timeout_s is not None else timeout_s
        done = threading.Event()
        args = (t, c, done, limit, lock, clock)
        threading.Thread(target=_worker, args=args, name=f"tool {c.name}", daemon=True).start()
        running.append((c, done, limit))

    start = time.monotonic()
    for c, done, limit in running:
        wait = None if limit is None else max(0.0, start + limit - time.monotonic())
        if not done.wait(wait):
            with lock:
                if not done.is_set():
                    c.result = f"timed out after {limit:g} s. Try a smaller or different call."
                    c.is_error, c.duration_s = True, float(limit or 0)
                    done.set()
    return list(calls)


def _worker(
    t: Tool,
    c: ToolCall,
    done: threading.Event,
    limit: float | None,
    lock: threading.Lock,
    clock: Callable[[], float],
) -> None:
    _local.deadline = None if limit is None else time.monotonic() + limit
    started = clock()
    content, is_error = _call(t, c.input)
    with lock:
        if not done.is_set():
            c.result, c.is_error, c.duration_s = content, is_error, clock() - started
            done.set()


def run_subprocess(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str],
    timeout_s: float | None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `argv` (no shell) in its own process group; on timeout kill the whole group.

    The timeout is the smaller of `timeout_s` and what the loop still waits for this call
    (`time_left()`). Raises `ToolError("timed out after N s ...")` when it fires.
    """
    left = time_left()
    limit = timeout_s if left is None else left if timeout_s is None else min(timeout_s, left)
    posix = os.name == "posix"
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=posix,  # its own process group, so children die with it
    )
    try:
        out, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        _kill_group(proc, posix)
        proc.communicate()
        raise ToolError(
            f"timed out after {limit:g} s; the process and its children were killed. "
            "Try a smaller or different call."
        ) from None
    finally:
        _kill_group(proc, posix)  # also reaps children left behind by a finished process
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, None)


def _kill_group(proc: subprocess.Popen[str], posix: bool) -> None:
    try:
        if posix:
            os.killpg(proc.pid, signal.SIGKILL)
        elif proc.poll() is None:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass  # already gone
