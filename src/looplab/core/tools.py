"""Tools: what the model may ask for, one call of a tool (`ToolCall`), and answering a
turn's calls.

    @tool
    def read_file(path: str) -> str:
        '''Read a text file of the repository. Call it to see source code or logs.'''
        ...

This module says what a tool is, whether a call fits it (`why_not_run`: an unknown name, or
input that fails the `input_schema`) and where it runs (`answer_calls`: the tool's choice);
`looplab.running` runs it.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import anthropic
from anthropic.lib.tools._beta_functions import BaseFunctionTool

from ..i18n import worded
from ..running.calls import Outcome, _call_tool
from ..running.output import ToolError, describe
from ..running.problems import schema_problem
from ..running.process_calls import call_in_process
from ..running.threads import call_in_thread
from ..schemas import validator

Isolation = Literal["thread", "process"]
__all__ = ["Tool", "ToolCall", "ToolError", "answer_calls", "as_tools", "why_not_run", "tool"]


def check_seconds(what: str, value: object) -> None:
    """Raise a `ValueError` naming `what` unless `value` is `None` or seconds > 0."""
    ok = value is None or (
        isinstance(value, (int, float)) and not isinstance(value, bool)
        and math.isfinite(value) and value > 0
    )
    if not ok:
        raise ValueError(f"{what}: use a number of seconds > 0 (e.g. 5 or 0.5), or None "
                         "for no limit")


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
    """Seconds a call may take, after which its result is an `is_error` timeout; the call
    then runs in a thread of its own (`None`: `Limits.tool_timeout_s`, which is off by
    default, so the call runs in the loop's thread, as in the article)."""
    isolate: Isolation = "thread"
    """`"process"`: each call runs in a child process, which a timeout or Ctrl-C kills
    together with everything it started (see `looplab.running.calls`)."""

    def __post_init__(self) -> None:
        check_seconds(f"@tool(timeout_s={self.timeout_s!r})", self.timeout_s)
        if self.isolate not in ("thread", "process"):
            raise ValueError(f"@tool(isolate={self.isolate!r}): use \"thread\" or \"process\"")

    @functools.cached_property
    def validator(self) -> Any:
        """The `input_schema`'s validator, made on first use (`looplab.schemas`)."""
        return validator(self.input_schema)

    def definition(self) -> dict[str, Any]:
        """The entry for the request's `tools` list."""
        return {
            "name": self.name, "description": self.description, "input_schema": self.input_schema
        }

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)


@dataclass
class ToolCall:
    """One `tool_use` block and the `tool_result` that answered it."""

    id: str
    name: str
    input: Any
    result: Any = None
    """The `content` of the `tool_result` sent back."""
    is_error: bool = False
    duration_s: float = 0.0
    outcome: str = "pending"
    """"pending" until answered; then "ran", "blocked" (the repeat gate answered it without
    running it), "not_run" (refused before it ran, or the run stopped first) or
    "interrupted" (Ctrl-C while it ran)."""
    abandoned: bool = False
    """It timed out in a thread that is still running (a thread cannot be killed)."""

    @property
    def label(self) -> str:
        """`outcome` as a learner reads it, in the language the run speaks: "ran",
        "blocked", "not run", "interrupted" (`outcome` itself stays the value to compare)."""
        labels = {"ran": worded("ran"), "blocked": worded("blocked"),
                  "not_run": worded("not run"), "interrupted": worded("interrupted"),
                  "pending": worded("pending")}
        return labels.get(self.outcome, self.outcome)

    def answer(self, result: Any, *, is_error: bool, outcome: str = "ran",
               duration_s: float = 0.0, abandoned: bool = False) -> None:
        """Record the `tool_result` this call gets: the one place a call is answered."""
        self.result, self.is_error, self.outcome = result, is_error, outcome
        self.duration_s, self.abandoned = duration_s, abandoned


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None,
    timeout_s: float | None = None, isolate: Isolation = "thread",
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout_s: float | None = None,
    isolate: Isolation = "thread",
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a `Tool` from a function: `@tool`, `@tool(timeout_s=5)`, `@tool(isolate="process")`.

    The name is the function's name, the description its docstring, and `input_schema`
    comes from the signature and type hints (the SDK's `beta_tool`, which uses pydantic;
    `Args:` lines of the docstring become the parameters' descriptions).
    """

    check_seconds(f"@tool(timeout_s={timeout_s!r})", timeout_s)

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
            isolate=isolate,
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


# -- checking a call, and running it where its tool says -------------------------------

def why_not_run(c: ToolCall, tools: Mapping[str, Tool]) -> str | None:
    """Why `c` cannot run (unknown tool, bad input), or `None` when it can."""
    t = tools.get(c.name)
    if t is None:
        names = ", ".join(tools) or worded("(none)")
        return worded("unknown tool {name!r}. Available tools: {names}. Call one of these.",
                      name=c.name, names=names)
    try:
        errors = sorted(t.validator.iter_errors(c.input), key=lambda e: list(e.absolute_path))
        return _invalid(t, errors) if errors else None
    except Exception as e:  # a broken hand-written schema
        return worded("cannot check the input of {name}: {error}", name=c.name,
                      error=describe(e))


def _invalid(t: Tool, errors: list[Any]) -> str:
    """What is wrong with a call's input for `t`: each of jsonschema's `errors`, and the
    schema to match."""
    lines = []
    for e in errors:
        where = "/".join(str(p) for p in e.absolute_path)
        said = schema_problem(e)
        lines.append(f"- {where}: {said}" if where else f"- {said}")
    schema = json.dumps(t.input_schema, ensure_ascii=False)
    return worded("invalid input for {name}:\n{errors}\nCall {name} again with input that "
                  "matches its input_schema: {schema}", name=t.name, errors="\n".join(lines),
                  schema=schema)


def answer_calls(calls: Sequence[ToolCall], tools: Mapping[str, Tool], *,
                 timeout_s: float | None) -> list[ToolCall]:
    """Answer every call of a turn, one after another, in call order (the article's
    `[run_tool(b) for b in calls]`): one that cannot run (`why_not_run`) says why; the rest
    run where their tool says. By default here, in the loop's own thread, as in the article;
    with a timeout (the tool's own, else `timeout_s`: `Limits.tool_timeout_s`) in a thread
    of its own; with `isolate="process"` in a process. A Ctrl-C, in a tool or between
    calls, is raised again once every call has its result (those not yet run: "not run")."""
    try:
        for c in calls:
            if c.outcome != "pending":  # answered already (the repeat gate blocked it)
                continue
            why = why_not_run(c, tools)
            if why is not None:
                c.answer(why, is_error=True, outcome="not_run")
                continue
            t = tools[c.name]
            limit = t.timeout_s if t.timeout_s is not None else timeout_s
            if t.isolate == "process":
                o = call_in_process(t, c.input, limit)
            elif limit is not None:
                o = call_in_thread(t, c.input, limit)
            else:  # the default: here, in the loop's own thread
                started = time.monotonic()
                content, is_error, outcome = _call_tool(t, c.input)
                o = Outcome(content, is_error, outcome, time.monotonic() - started)
            c.answer(o.result, is_error=o.is_error, outcome=o.outcome,
                     duration_s=o.duration_s, abandoned=o.abandoned)
            if o.outcome == "interrupted":
                raise KeyboardInterrupt
    finally:  # after Ctrl-C, too: what ran keeps its result, the rest are not run
        for c in calls:
            if c.outcome == "pending":
                c.answer(worded("not run: the run was stopped by the user "
                                "(KeyboardInterrupt) before this call started"),
                         is_error=True, outcome="not_run")
    return list(calls)

# looplab's own reference, kept where a graded kernel drops the public name (grading/hiding.py)
_answer_calls = answer_calls
