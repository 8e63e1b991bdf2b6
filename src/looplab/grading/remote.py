"""A lesson's check cell, run in the grader's process against names that live in the kernel.

The grader runs the check cell itself, as it read it from its copy of the lesson, with a
namespace (`KernelNames`) in which every name the cell does not define is looked up in the
student's kernel: a function there becomes a `Remote`, which the checker calls like the
function itself (each call is a job on the wire); a value comes as plain JSON. The
checker, its expected values and its fake API all stay here; the checker's scorecard is
read here. A check the kernel never answers fails with the reason (`KernelStopped`).
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .codec import back, remote_exception
from .session import Outcome, Session
from .wire import KernelStopped, Wire, reverse_line

HINT_CHARS = 500
CELL_CHECK = "runs without an error"
"""The one check of a check cell that calls no checker (an `assert`, say)."""


@dataclass
class Kernel:
    """The kernel a check cell talks to, and the first way its jobs went wrong."""

    wire: Wire
    session: Session
    seconds: float
    """How long one job may take (the cell time limit); the notebook's deadline holds too."""
    trouble: Outcome | None = None
    log: list[str] = field(default_factory=list)
    shipped: frozenset[str] = frozenset()
    """looplab's own answers to the exercises checked here (`shipped.SHIPPED`)."""
    ran: tuple[str, str] | None = None
    """(the student's function, the shipped answer) the kernel reported running inside a
    call of it (`hiding.Watch`), the first time."""

    def job(self, job: dict[str, Any]) -> Any:
        if self.trouble is not None:
            raise KernelStopped(_STOPPED.get(self.trouble.kind, "the kernel stopped"))
        until = min(time.monotonic() + self.seconds, self.session.deadline)
        result, outcome = self.wire.run(job, self.session, until)
        if outcome.kind not in ("ok", "error"):
            self.trouble = outcome
            raise KernelStopped(_STOPPED.get(outcome.kind, "the kernel stopped"))
        if not isinstance(result, dict):
            raise KernelStopped("the kernel sent no answer")
        return result


_STOPPED = {
    "interrupted": "the check ran over its time and was interrupted",
    "timeout": "the check ran over its time and ignored the interrupt",
    "deadline": "the notebook ran over its deadline",
    "crashed": "the kernel died",
    "cancelled": "grading was cancelled",
}


class Remote:
    """The student's function `name`, called in their kernel with the checker's arguments.

    Arguments the checker keeps (its fake client, tools, clock) go as stand-ins; the
    return value comes back as plain JSON. A list argument the function changed in place
    is changed here the same way (`next_reply` appends to `messages`)."""

    one_call_at_a_time = True
    """A kernel runs one job at a time: a checker must not call this from threads at once."""

    def __init__(self, kernel: Kernel, name: str) -> None:
        self.kernel = kernel
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        handles = self.kernel.wire.handles
        job = {"kind": "call", "name": self.__name__, "args": [handles.out(a) for a in args],
               "kwargs": {k: handles.out(v) for k, v in kwargs.items()}}  # fmt: skip
        line = reverse_line()
        if line is not None:  # called back from a kernel's request, which is waiting
            result = line.ask({"op": "kcall", **job})
        else:
            result = self.kernel.job(job)
        if not isinstance(result, dict):
            raise KernelStopped("the kernel sent no answer")
        ran = result.get("shipped")  # only a name the grader watches for counts
        if isinstance(ran, str) and ran in self.kernel.shipped and self.kernel.ran is None:
            self.kernel.ran = (self.__name__, ran)
        if "raised" in result:
            raise self.kernel.wire.exception_in(result["raised"])
        changed = result.get("args")
        for arg, after in zip(args, changed if isinstance(changed, list) else [], strict=False):
            if type(arg) is list and isinstance(after, list):
                arg[:] = back(after)
        return back(result.get("value"), KernelJobs(self.kernel))

    def __repr__(self) -> str:
        return f"<function {self.__name__} in the kernel>"


@dataclass(frozen=True)
class KernelJobs:
    """Calls an object the student's function returned (a tool, a function), later: over
    the line of the kernel request this thread answers, else as a job of its own."""

    kernel: Kernel

    def ask(self, message: dict[str, Any]) -> Any:
        line = reverse_line()
        if line is not None:
            return line.ask(message)
        # a job, not a request to answer: without the "op" the kernel would run it as one
        return self.kernel.job({**{k: v for k, v in message.items() if k != "op"},
                                "kind": "kcall"})


class KernelNames(dict[str, Any]):
    """A check cell's namespace: what the cell defines, else a builtin, else the name in
    the student's kernel."""

    def __init__(self, kernel: Kernel) -> None:
        super().__init__(__name__="looplab_grader", __builtins__=builtins)
        self.kernel = kernel

    def __missing__(self, name: str) -> Any:
        if hasattr(builtins, name):  # the checkers' own `len`, not the student's
            return getattr(builtins, name)
        found = self.kernel.job({"kind": "lookup", "name": name})
        kind = found.get("kind")
        if kind == "callable":
            value: Any = Remote(self.kernel, name)
        elif kind == "value":
            value = back(found.get("value"))
        else:
            raise NameError(f"name {name!r} is not defined")
        self[name] = value
        return value


def _raised(e: BaseException) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return (f"{type(e).__name__}: {text}" if text else type(e).__name__)[:HINT_CHARS]


def rows_of(card: Any) -> list[tuple[str, bool, str]]:
    """A scorecard (made here, by the grader's checker) as plain (name, passed, hint)."""
    if not isinstance(card, list):
        raise TypeError(f"the check returned {type(card).__name__}, not a scorecard")
    rows = []
    for item in card:
        fields = tuple(item)
        hint = str(fields[2]) if len(fields) > 2 else ""
        rows.append((str(fields[0])[:HINT_CHARS], fields[1] is True, hint[:HINT_CHARS]))
    return rows


def run_steps(steps: list[tuple[str, str, str]], names: KernelNames,
              on_entry: Callable[[str, Any, str], None]) -> None:  # fmt: skip
    """Run one check cell's steps here; report each check's rows with `on_entry`.

    `"exec"` runs statements; `"check"` evaluates a checker call and reports its
    scorecard; `"cell"` runs statements as one check that passes when they raise nothing."""
    for kind, label, source in steps:
        try:
            if kind == "check":
                rows: Any = rows_of(eval(compile(source, "<check>", "eval"), names))
            else:
                exec(compile(source, "<check>", "exec"), names)
                rows = [(CELL_CHECK, True, "")]
            entry: tuple[Any, str] = (rows, "")
        except KernelStopped as e:  # no answer: why, not an exception of the student's
            entry = (None, str(e))
        except Exception as e:
            entry = (None, _raised(e))
        if kind != "exec":
            on_entry(label, *entry)


__all__ = ["CELL_CHECK", "Kernel", "KernelJobs", "KernelNames", "Remote", "remote_exception",
           "run_steps"]
