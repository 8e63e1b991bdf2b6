"""In the browser (Pyodide) the demo's run_tests cannot start pytest: for the shipped
repository it answers with pytest's recorded output, for a changed one it says it needs a
real Python."""

from __future__ import annotations

import json
import shutil
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from looplab import ToolError
from looplab.lessons.demo import RECORDING, demo_root, demo_tools

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from record_demo_pytest import recording  # noqa: E402


def test_the_recording_is_what_pytest_prints_for_the_shipped_repository() -> None:
    """Stale after a change to demo_repo/: run `python tools/record_demo_pytest.py`."""
    shipped = json.loads(files("looplab.lessons").joinpath(RECORDING).read_text("utf-8"))
    assert shipped == recording()
    assert "1 failed, 2 passed" in shipped["modules"]["login"]


def test_in_the_browser_the_shipped_repository_answers_as_it_does_locally(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run_tests, _ = demo_tools()
    local = run_tests.fn(module="login")
    monkeypatch.setattr(sys, "platform", "emscripten")
    assert run_tests.fn(module="login") == local


def test_in_the_browser_a_changed_repository_needs_a_real_python(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(demo_root(), repo)
    (repo / "login.py").write_text((repo / "login.py").read_text() + "\n# fixed\n")
    run_tests, _ = demo_tools(repo)
    monkeypatch.setattr(sys, "platform", "emscripten")
    assert "needs a real Python" in run_tests.fn(module="login")
    with pytest.raises(ToolError, match="no tests for module 'auth'"):
        run_tests.fn(module="auth")
