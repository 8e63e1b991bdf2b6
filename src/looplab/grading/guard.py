"""The grader's code inside a student's kernel: a snapshot before their code, checks after.

The grader sends two requests. Before the notebook's first cell, `arm()` records the
libraries as they were loaded: the namespace of every standard-library, looplab and
anthropic module, and the attributes and code of looplab's classes and functions. After
the notebook's last cell, the grader sends this file's source again, run afresh (so
replacing this module's functions changes nothing), and calls `run(path, steps)`: it puts
all that `arm` saw back (so a notebook that replaced a checker, `Scorecard.__str__`,
`Check.__new__` or `math.isclose` is checked by the real ones), then runs the lesson's own
check cell, as the grader read it from its copy of the lesson, in a copy of the
notebook's namespace. Each checker's rows are appended to `path` as one Python literal
per line; nothing the notebook printed is read. `path` is named by the grader only then.

This stops a notebook from passing by accident or by patching what it can see. Code
written against the grader's own internals (hooking `exec` or tracing to rewrite the
grader's code as it runs, forging the saved snapshot, or a thread that keeps patching
while the checks run) is out of reach of anything that runs in the same process.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable
from typing import Any

ARMED = "looplab.grading.guard"
"""The module `arm` ran in, which keeps the snapshot."""
ROOTS = frozenset({"builtins", "looplab", "anthropic", "httpx", "httpx2"})
"""Besides the standard library, the packages whose modules are put back before checks."""
OWN = "looplab"
"""The package whose classes and functions are put back too."""
HINT_CHARS = 500
CELL_CHECK = "runs without an error"
"""The one check of a check cell that calls no checker (an `assert`, say)."""

_Function = tuple[types.FunctionType, Any, Any, Any]
_snapshot: dict[str, Any] = {}
_MISSING = object()


def _restorable(name: str) -> bool:
    top = name.partition(".")[0]
    return top in ROOTS or top in sys.stdlib_module_names


def _functions(values: Iterable[Any], module: str) -> list[_Function]:
    found: list[_Function] = []
    for value in values:
        for f in (value, getattr(value, "__func__", None), getattr(value, "fget", None)):
            if isinstance(f, types.FunctionType) and f.__module__ == module:
                found.append((f, f.__code__, f.__defaults__, f.__kwdefaults__))
    return found


def arm() -> None:
    """Record the loaded libraries and the notebook's namespace, before any student code."""
    from IPython import get_ipython

    modules: dict[str, tuple[types.ModuleType, dict[str, Any]]] = {}
    classes: list[tuple[type, dict[str, Any]]] = []
    functions: list[_Function] = []
    for name, module in list(sys.modules.items()):
        if not isinstance(module, types.ModuleType) or not _restorable(name):
            continue
        namespace = dict(vars(module))
        modules[name] = (module, namespace)
        if name.partition(".")[0] != OWN:
            continue
        functions += _functions(namespace.values(), name)
        for value in namespace.values():
            if isinstance(value, type) and value.__module__ == name:
                classes.append((value, dict(vars(value))))
                functions += _functions(vars(value).values(), name)
    lists = {n: list(getattr(sys, n)) for n in ("meta_path", "path_hooks", "path")}
    _snapshot.update(
        modules=modules,
        classes=classes,
        functions=functions,
        lists=lists,
        user_ns=get_ipython().user_ns,
    )


def restore(snapshot: dict[str, Any]) -> None:
    """Put back every module attribute, class attribute and function code `arm` saw."""
    sys.settrace(None)
    sys.setprofile(None)
    for name, (module, saved) in snapshot["modules"].items():
        sys.modules[name] = module
        current = vars(module)
        for key, value in saved.items():
            if current.get(key, _MISSING) is not value:
                current[key] = value
    for name, saved_list in snapshot["lists"].items():
        getattr(sys, name)[:] = saved_list
    for cls, saved in snapshot["classes"]:
        _restore_class(cls, saved)
    for f, code, defaults, kwdefaults in snapshot["functions"]:
        if f.__code__ is not code:
            f.__code__ = code
        f.__defaults__ = defaults
        f.__kwdefaults__ = kwdefaults


def _restore_class(cls: type, saved: dict[str, Any]) -> None:
    current = vars(cls)
    for key in [k for k in current if k not in saved]:
        try:
            delattr(cls, key)
        except (AttributeError, TypeError):
            pass
    for key, value in saved.items():
        if current.get(key, _MISSING) is not value:
            try:
                setattr(cls, key, value)
            except (AttributeError, TypeError):
                pass


def _raised(e: BaseException) -> str:
    try:
        text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    except Exception:  # an exception whose __str__ raises
        text = ""
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _text(value: Any) -> str:
    # a str subclass (such as looplab's translatable Message) counts by its own characters:
    # str.__str__ reads them without calling anything the subclass overrides
    text = str.__str__(value) if isinstance(value, str) else repr(type(value).__name__)
    return text[:HINT_CHARS]


def rows_of(card: Any) -> list[tuple[str, bool, str]]:
    """A scorecard as plain (name, passed, hint) tuples; `passed` only when it is `True`."""
    if not isinstance(card, list):
        raise TypeError(f"the check returned {type(card).__name__}, not a scorecard")
    rows = []
    for item in card:
        fields = tuple(item)
        hint = fields[2] if len(fields) > 2 else ""
        rows.append((_text(fields[0]), fields[1] is True, _text(hint)))
    return rows


def run(path: str, steps: list[tuple[str, str, str]]) -> None:
    """Run one trusted check cell, step by step; append each check's rows to `path`.

    A step is `(kind, label, source)`: `"exec"` runs statements; `"check"` evaluates a
    checker call and records its scorecard; `"cell"` runs statements as one check that
    passes when they raise nothing. A check that raises is recorded with its exception.
    """
    snapshot = sys.modules[ARMED]._snapshot
    restore(snapshot)
    namespace = dict(snapshot["user_ns"])
    for kind, label, source in steps:
        try:
            if kind == "check":
                rows: Any = rows_of(eval(compile(source, "<check>", "eval"), namespace))
            else:
                exec(compile(source, "<check>", "exec"), namespace)
                rows = [(CELL_CHECK, True, "")]
            entry: tuple[str, Any, str] = (label, rows, "")
        except BaseException as e:  # noqa: B036 - a timeout's interrupt or sys.exit included
            entry = (label, None, _raised(e)[:HINT_CHARS])
        if kind != "exec":  # a failed statement shows up in the check that needed it
            with open(path, "a", encoding="utf-8") as f:
                f.write(repr(entry) + "\n")
