"""In the browser (Pyodide) the demo's run_tests cannot start pytest: it says so."""

from __future__ import annotations

import sys

import pytest

from looplab.lessons.demo import demo_tools


def test_run_tests_says_it_needs_a_real_python(monkeypatch: pytest.MonkeyPatch) -> None:
    run_tests, _ = demo_tools()
    monkeypatch.setattr(sys, "platform", "emscripten")
    assert "needs a real Python" in run_tests.fn(module="login")
