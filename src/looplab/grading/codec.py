"""What crosses the wire, seen from the grader: its objects going in, plain JSON coming back.

Going to the kernel (`Handles.out`), what the grader keeps (a fake API client, a clock,
tools, a callable) becomes a numbered stand-in; other values go as JSON, or pickled (only
the kernel unpickles, and only what the grader made). Coming back (`back`), everything is
`json.loads` output: dicts, lists, strings, numbers, booleans. SDK objects the kernel
returned are re-read by the SDK's own classes from their JSON; a tuple is rebuilt; an
object that has no JSON form stays in the kernel, and the grader holds only its number
(`KernelRef`). No method of anything the student's code made is ever called here.
"""

from __future__ import annotations

import base64
import itertools
import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import anthropic
import pydantic

from ..core.limits import Limits
from ..core.tools import Tool
from ..errors import LooplabError
from ..fake.clock import FakeClock
from ..lessons.subagents import Ledger
from .shared import ledger_desk


class Asks(Protocol):
    """Where a kernel object's calls go: the line of a kernel request that waits (`Line`),
    or a job of its own while the kernel is idle (`remote.KernelJobs`)."""

    def ask(self, message: dict[str, Any]) -> Any: ...


DATACLASSES: dict[str, Any] = {"looplab.core.limits.Limits": Limits}
"""The kernel's dataclasses the grader reads back by value (a loop's settings)."""
_BLOCK: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(anthropic.types.ContentBlock)


@dataclass(frozen=True)
class KernelRef:
    """An object that stays in the kernel (its number there, and its type's name). With a
    `line` to ask, it can be called there."""

    number: int
    type_name: str
    line: Asks | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        return f"<{self.type_name} in the kernel>"

    def ask(self, request: dict[str, Any]) -> Any:
        if self.line is None:
            raise TypeError(f"{self!r} cannot be used here")
        return self.line.ask({"op": "kcall", "ref": self.number, **request})

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        reply = self.ask({"args": [_json(a) for a in args],
                          "kwargs": {k: _json(v) for k, v in kwargs.items()}})  # fmt: skip
        if not isinstance(reply, dict) or "raised" in reply:
            info = reply.get("raised", {}) if isinstance(reply, dict) else {}
            raise remote_exception(str(info.get("type")), str(info.get("message", "")))
        return back(reply.get("value"), self.line)


def _json(value: Any) -> Any:
    """A tool's input for the kernel: JSON only."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    raise TypeError(f"{type(value).__name__} cannot be sent to the kernel")


class RemoteError(LooplabError):
    """An exception the student's code raised, rebuilt from its type's name and text."""


def remote_exception(name: str, message: str) -> Exception:
    """An exception named like the kernel's (a plain `Exception` of that name here)."""
    safe = name if name.isidentifier() else "Exception"
    cls: type[Exception] = type(safe, (RemoteError,), {"__module__": "kernel"})
    return cls(message)


@dataclass
class Handles:
    """The grader's objects the kernel may use during one check cell, by number."""

    objects: dict[int, Any] = field(default_factory=dict)
    tags: dict[int, Any] = field(default_factory=dict)
    """Exceptions (or error responses) the grader sent to the kernel, by tag."""
    runner_recipe: Callable[[Any], Any] | None = None

    numbers: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    """Numbers for objects and tags alike (taking one is atomic: tools run in threads)."""

    def reset(self, runner_recipe: Callable[[Any], Any] | None = None) -> None:
        """Forget every object: a new check cell starts."""
        self.objects.clear()
        self.tags.clear()
        self.runner_recipe = runner_recipe

    def keep(self, value: Any) -> int:
        number = next(self.numbers)
        self.objects[number] = value
        return number

    def tag(self, value: Any) -> int:
        number = next(self.numbers)
        self.tags[number] = value
        return number

    def out(self, value: Any) -> Any:
        """`value` for the kernel: JSON, stand-ins, or pickled."""
        if value is None or type(value) in (bool, int, float, str):
            return value
        if type(value) is list:
            return [self.out(v) for v in value]
        if type(value) is tuple:
            return {"$tuple": [self.out(v) for v in value]}
        if type(value) is dict and all(type(k) is str for k in value):
            return {k: self.out(v) for k, v in value.items()}
        return self._special(value)

    def _special(self, value: Any) -> Any:
        if isinstance(value, KernelRef):
            return {"$kref": value.number}
        if isinstance(value, anthropic.Anthropic):
            return self.client(value)
        wire_form = getattr(type(value), "wire_form", None)  # the grader's own objects
        if wire_form is not None:
            return wire_form(value, self)
        if isinstance(value, Ledger):  # changed by the student's code, read here after
            return {"$ledger": self.keep(ledger_desk(value))}
        if isinstance(value, Tool):
            # a tool whose function is the kernel's own (a student's delegate handed back
            # as another delegate's tool) runs there directly, not through the grader
            own = {"kref": value.fn.number} if isinstance(value.fn, KernelRef) else {}
            return {"$tool": self.keep(value), **own, "name": value.name,
                    "description": value.description, "input_schema": value.input_schema,
                    "timeout_s": value.timeout_s, "isolate": value.isolate}  # fmt: skip
        recipe = self.runner_recipe(value) if self.runner_recipe else None
        if recipe is not None:
            client, params = recipe
            return {"$runner": True, "client": self.client(client), "params": self.out(params)}
        if isinstance(value, FakeClock) or callable(value):
            name = str(getattr(value, "__name__", "clock"))
            within = getattr(value, "within_s", None)  # an approver's time (lesson 15)
            timed = {"within_s": float(within)} if isinstance(within, (int, float)) else {}
            return {"$callable": self.keep(value), "name": name, **timed}
        return {"$pickle": base64.b64encode(pickle.dumps(value)).decode()}

    def client(self, client: anthropic.Anthropic) -> dict[str, Any]:
        return {"$client": self.keep(client), "max_retries": client.max_retries,
                "no_waits": "_sleep_for_retry" in vars(client)}  # fmt: skip


def back(value: Any, line: Asks | None = None) -> Any:
    """A value from the kernel (already `json.loads` output) as the checkers read it.
    With `line`, the kernel's objects in it can be used while the kernel waits there."""
    if isinstance(value, list):
        return [back(v, line) for v in value]
    if not isinstance(value, dict):
        return value
    if isinstance(value.get("$tuple"), list):
        return tuple(back(v, line) for v in value["$tuple"])
    if "$sdk" in value and isinstance(value.get("v"), dict):
        return _sdk(value["$sdk"], value["v"])
    if "$dataclass" in value and value["$dataclass"] in DATACLASSES:
        try:
            return DATACLASSES[value["$dataclass"]](**back(value.get("fields", {})))
        except (TypeError, ValueError):
            return back(value.get("fields", {}))
    if "$kref" in value or "$tool" in value:
        number = value.get("$kref", value.get("$tool"))
        ref = KernelRef(number if type(number) is int else 0, str(value.get("type", "tool")), line)
        return _tool(value, ref) if "$tool" in value and line is not None else ref
    return {k: back(v, line) for k, v in value.items()}


def _tool(value: dict[str, Any], ref: KernelRef) -> Any:
    """A tool of the kernel's, runnable here while the kernel waits."""
    try:
        return Tool(str(value["name"]), str(value["description"]),
                    back(value["input_schema"]), ref)  # fmt: skip
    except (KeyError, TypeError, ValueError):
        return ref


def _sdk(kind: Any, data: dict[str, Any]) -> Any:
    try:
        if kind == "message":
            return anthropic.types.Message.model_validate(data)
        return _BLOCK.validate_python(data)
    except pydantic.ValidationError:
        return back(data)
