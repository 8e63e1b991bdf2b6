"""In the browser edition (Pyodide: `sys.platform == "emscripten"`) the grader refuses to
start, with the reason in one line, in the learner's language: no traceback, neither from
the command nor in a notebook."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

import looplab
from looplab.grading.browser import GraderUnavailable, refuse_in_browser

AS_IN_PYODIDE = """
import runpy, sys
import looplab
sys.platform = "emscripten"
runpy.run_module(sys.argv[1], run_name="__main__")
"""


@pytest.mark.parametrize("module", ["looplab.grade", "looplab.grading"])
def test_the_command_says_why_and_exits_2(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", AS_IN_PYODIDE, module, "submissions"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("looplab-grade: looplab-grade cannot run here: ")
    assert "Pyodide, in the browser" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


def test_in_a_notebook_it_is_one_line_in_the_learners_language(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    shell = types.ModuleType("IPython")
    shell.get_ipython = lambda: object()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", shell)
    monkeypatch.setattr(sys, "platform", "emscripten")
    looplab.set_language("zh-CN")
    try:
        with pytest.raises(GraderUnavailable) as refused:
            refuse_in_browser()
    finally:
        looplab.set_language(None)
    (line,) = refused.value._render_traceback_()
    assert line.startswith("GraderUnavailable: looplab-grade ")
    assert "Pyodide" in line and "cannot run here" not in line


def test_elsewhere_it_lets_the_grader_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    refuse_in_browser()
