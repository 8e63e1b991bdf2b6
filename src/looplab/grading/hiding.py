"""A graded kernel's looplab, without looplab's own answers to the lesson's exercises.

Several exercises ask for something looplab ships (`close_dangling`, the `STOP_REASONS`
table, `answer_calls`). The grader starts each kernel with `LOOPLAB_GRADING` naming them
for its lesson (`shipped.kernel_request`), and here, before any student code runs:

1. `hide`: those names are taken out of every looplab module already imported (and out of
   their `__all__`), and out of a looplab module run again (`importlib.reload`, an import
   after `del sys.modules[...]`), so `getattr(importlib.import_module("looplab"),
   "close_dangling")`, a name put together at run time or `sys.modules[...]` fails like
   any missing name. looplab's own code calls its private reference (`_close_dangling`;
   the loop holds `STOP_REASONS` as a default of `AgentRun._turn`), so `run_agent` and the
   lesson's other cells still work. `run_agent` and `AgentRun` stay: the lessons use them.
2. `Watch`: while the grader's checker calls a student's function, the kernel notes whether
   the code of one of those shipped functions ran inside the call, found by its code
   object however it was reached (a private name, `gc`, a copy loaded from looplab's
   file); the wire reports it and the grader grades the notebook `invalid`
   (`remote.Remote`). This is a second layer only: the kernel is the student's, and code
   that unhooks the profiler or rewrites this module can hide what ran. What the grader
   decides for itself is 1 (it chose what the kernel's looplab holds) and the static
   reading of the source (`shipped.py`).

What stays out of reach: a student who retypes looplab's source (or copies a table the
lesson prints, or the table's data out of looplab's memory) has written it; that is
copying, not something a grader can see.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import sys
import threading
import types
from collections.abc import Iterable, Iterator, Sequence
from importlib.machinery import ModuleSpec
from typing import Any

ENV = "LOOPLAB_GRADING"
"""`{"hide": [names], "watch": [names]}`: what the grader asks of a kernel it starts."""
PACKAGE = "looplab"

_codes: dict[types.CodeType, str] = {}
"""The code of each watched function (or a watched class's methods): its shipped name."""
_names: set[str] = set()
"""Their code's names (`co_name`): most calls are told apart by this alone, cheaply."""


def from_env() -> None:
    """Do what `LOOPLAB_GRADING` asks (nothing when it is not set), and drop the variable."""
    asked = os.environ.pop(ENV, "")
    if not asked:
        return
    request = json.loads(asked)
    watch(request.get("watch", []))
    hide(request.get("hide", []))


def _modules() -> list[types.ModuleType]:
    return [m for name, m in list(sys.modules.items())
            if (name == PACKAGE or name.startswith(PACKAGE + ".")) and m is not None]  # fmt: skip


def hide(names: Iterable[str]) -> None:
    """Take `names` out of every imported looplab module and its `__all__`, now and each
    time a looplab module runs again (`importlib.reload`, an import after `del sys.modules`)."""
    hidden = frozenset(names)
    if not hidden:
        return
    _take_out(hidden)
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder(hidden))


def _take_out(hidden: frozenset[str]) -> None:
    for module in _modules():
        space = vars(module)
        for name in hidden:
            space.pop(name, None)
        public = space.get("__all__")
        if isinstance(public, (list, tuple)):
            space["__all__"] = [n for n in public if n not in hidden]


class _Finder(importlib.abc.MetaPathFinder):
    """Finds a looplab module as Python would, with a loader that takes the hidden names out
    again once the module has run."""

    def __init__(self, hidden: frozenset[str]) -> None:
        self.hidden = hidden

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> ModuleSpec | None:  # fmt: skip
        if fullname.split(".")[0] != PACKAGE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader, self.hidden)
        return spec


class _Loader(importlib.abc.Loader):
    """`loader`, but after running a module the hidden names are taken out again."""

    def __init__(self, loader: importlib.abc.Loader, hidden: frozenset[str]) -> None:
        self._loader = loader
        self._hidden = hidden

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self._loader.exec_module(module)
        _take_out(self._hidden)

    def __getattr__(self, name: str) -> Any:  # get_source, get_resource_reader, ...
        return getattr(self._loader, name)


def watch(names: Iterable[str]) -> None:
    """Remember the code of looplab's `names` (before `hide` takes them away); a table
    (`STOP_REASONS`) has none."""
    for name in names:
        for module in _modules():
            value = vars(module).get(name)
            if value is None:
                continue
            for code in _code_of(value):
                _codes[code] = name
                _names.add(code.co_name)


def _code_of(value: Any) -> Iterator[types.CodeType]:
    """The code objects of a function, or of every method of a class, from looplab's files
    (not the `__init__`/`__eq__` a dataclass writes, which another class could share)."""
    members = list(vars(value).values()) if isinstance(value, type) else [value]
    for member in members:
        for fn in (member, getattr(member, "__func__", None), getattr(member, "fget", None)):
            code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
            if isinstance(code, types.CodeType) and not code.co_filename.startswith("<"):
                yield code


class Watch:
    """`with Watch() as seen:` ... `seen.ran`: the shipped name whose code ran inside, if any
    (in this thread and in threads started inside)."""

    def __init__(self) -> None:
        self.ran: str | None = None
        self._before: tuple[Any, Any] = (None, None)

    def _event(self, frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "call" and self.ran is None and frame.f_code.co_name in _names:
            self.ran = _codes.get(frame.f_code)

    def __enter__(self) -> Watch:
        if _codes:
            self._before = (sys.getprofile(), threading.getprofile())
            sys.setprofile(self._event)
            threading.setprofile(self._event)
        return self

    def __exit__(self, *exc: object) -> None:
        if _codes:
            sys.setprofile(self._before[0])
            threading.setprofile(self._before[1])

    def report(self) -> dict[str, str]:
        """What goes back to the grader with the call's result."""
        return {"shipped": self.ran} if self.ran is not None else {}
