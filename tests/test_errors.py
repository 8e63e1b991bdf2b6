"""One family of errors: every exception class looplab defines derives from `LooplabError`,
every warning class from `LooplabWarning` (the package is walked, every module imported)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import looplab
from looplab import LooplabError, LooplabWarning, ScriptedModel, fake_client, say
from looplab.errors import FinishedRun, Misuse

# Not an error a user meets: the signal that ends a grading kernel's call, a BaseException
# so that no `except Exception` in a student's code can swallow it.
SIGNALS = {"looplab.grading.wire.KernelStopped"}


def looplab_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(looplab.__path__, "looplab."):
        if ".demo_repo" in info.name or info.name.endswith("__main__") or \
                info.name == "looplab.grade":  # these run a command when imported
            continue
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("looplab."):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return list(found.values())


def test_every_looplab_error_and_warning_is_of_the_family() -> None:
    classes = looplab_classes()
    assert len(classes) >= 25  # the walk finds them
    wrong = [f"{c.__module__}.{c.__qualname__}" for c in classes
             if f"{c.__module__}.{c.__qualname__}" not in SIGNALS
             and not issubclass(c, LooplabWarning if issubclass(c, Warning) else LooplabError)]
    assert wrong == []


def test_the_builtin_bases_callers_rely_on_are_kept() -> None:
    from looplab.history.texts import HistoryError

    assert issubclass(HistoryError, ValueError) and issubclass(Misuse, TypeError)
    assert issubclass(FinishedRun, RuntimeError)


def test_misuse_and_a_finished_run_are_looplab_errors() -> None:
    with pytest.raises(Misuse, match="limits must be a looplab.Limits"):
        looplab.run_agent(fake_client(ScriptedModel([say("hi")])), "hi", limits={})  # type: ignore[arg-type]
    run = looplab.AgentRun(fake_client(ScriptedModel([say("hi")])), "hi")
    run.step()
    with pytest.raises(LooplabError, match="this run has finished"):
        run.step()
