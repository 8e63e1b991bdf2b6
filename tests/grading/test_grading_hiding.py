"""A graded kernel's looplab without the lesson's shipped answers (`grading/hiding.py`).

Run in a fresh Python, as a kernel does it before any student code: every shipped answer
hidden at once, then every module of the package imported (one that still binds a public
name the grader hides would fail here, not in a student's kernel), modules run again,
looplab's own loop run, and the watch asked what ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from looplab.grading.hiding import ENV
from looplab.grading.shipped import NEEDED, SHIPPED, kernel_request

pytestmark = pytest.mark.slow  # a fresh Python that imports every module of looplab: seconds

EVERY = sorted(set().union(*SHIPPED.values()))
HIDDEN = [n for n in EVERY if n not in NEEDED]

KERNEL = """
import importlib, json, pkgutil, sys
import looplab, looplab.exercises
from looplab.grading import hiding
hiding.from_env()
out = {}
broken = {}
for info in pkgutil.walk_packages(looplab.__path__, "looplab."):
    if info.name.endswith(".__main__"):  # a command, not a module to import
        continue
    try:
        importlib.import_module(info.name)
    except Exception as e:
        broken[info.name] = f"{type(e).__name__}: {e}"
out["broken"] = {k: v for k, v in broken.items() if any(n in v for n in NAMES)}
out["left"] = sorted(f"{m}.{n}" for m, module in sys.modules.items()
                     if m.split(".")[0] == "looplab" for n in NAMES if n in vars(module))
out["by_getattr"] = [hasattr(importlib.import_module("looplab.history.dangling"), "close_"
                             + "dangling"), hasattr(looplab, "STOP_REASONS")]
namespace = {}
exec("from looplab import *", namespace)
out["star"] = "run_agent" in namespace and "close_dangling" not in namespace

from looplab import ScriptedModel, call, fake_client, run_agent, say, tool

def add(a: int, b: int) -> int:
    "Add two numbers."
    return a + b

result = run_agent(fake_client(ScriptedModel([call("add", {"a": 1, "b": 2}), say("3")])),
                   "1 + 2?", tools=[tool(add)])
out["run"] = [result.status, result.messages[2]["content"][0]["content"]]
left_open = [{"role": "user", "content": "1 + 2?"},
             {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01",
                                                "name": "add", "input": {"a": 1, "b": 2}}]}]
result = run_agent(fake_client(ScriptedModel([say("3")])), left_open, tools=[tool(add)])
out["resumed"] = result.status

private = looplab.history.dangling._close_dangling
reloaded = importlib.reload(importlib.import_module("looplab.history.dangling"))
del sys.modules["looplab.core.loop"]
fresh = importlib.import_module("looplab.core.loop")
out["run_again"] = [hasattr(reloaded, "close_dangling"), hasattr(fresh, "STOP_REASONS"),
                    hasattr(fresh, "run_agent")]
import importlib.util
spec = importlib.util.spec_from_file_location("looplab.history.copied", reloaded.__file__)
copied = importlib.util.module_from_spec(spec)
spec.loader.exec_module(copied)  # a copy from the file, past the import system

def mine(messages):
    return list(messages)

seen = {}
for label, fn in (("private", private), ("copied", copied.close_dangling),
                  ("own", mine)):
    with hiding.Watch() as watch:
        fn(left_open)
    seen[label] = watch.report()
with hiding.Watch() as watch:
    run_agent(fake_client(ScriptedModel([say("hi")])), "hi")
seen["run_agent"] = watch.report()
out["seen"] = seen
print(json.dumps(out))
"""


def _kernel(request: str) -> dict[str, Any]:
    env = {**os.environ, ENV: request}
    script = f"NAMES = {HIDDEN!r}\n" + KERNEL
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.fixture(scope="module")
def kernel() -> dict[str, Any]:
    return _kernel(json.dumps({"hide": HIDDEN, "watch": EVERY}))


def test_no_module_holds_a_hidden_answer_and_every_module_still_imports(
    kernel: dict[str, Any],
) -> None:
    assert kernel["left"] == []
    assert kernel["broken"] == {}
    assert kernel["by_getattr"] == [False, False]
    assert kernel["star"] is True


def test_a_module_run_again_loses_them_again(kernel: dict[str, Any]) -> None:
    assert kernel["run_again"] == [False, False, True]  # reloaded, imported afresh


def test_looplabs_loop_still_runs_on_its_private_references(kernel: dict[str, Any]) -> None:
    assert kernel["run"] == ["done", "3"]
    assert kernel["resumed"] == "done"


def test_the_watch_sees_looplabs_answer_by_any_path_and_nothing_else(
    kernel: dict[str, Any],
) -> None:
    assert kernel["seen"] == {
        "private": {"shipped": "close_dangling"},
        "copied": {"shipped": "close_dangling"},
        "own": {},
        "run_agent": {"shipped": "run_agent"},
    }


def test_a_lesson_hides_only_what_its_checkers_ask_for() -> None:
    assert json.loads(kernel_request(["check_close_dangling"])) == {
        "hide": ["close_dangling"], "watch": ["close_dangling"]}  # fmt: skip
    assert json.loads(kernel_request(["looplab.exercises.check_agent_loop"])) == {
        "hide": [], "watch": ["AgentRun", "run_agent"]}  # fmt: skip
    assert json.loads(kernel_request(["check_token_budget"])) == {"hide": [], "watch": []}
