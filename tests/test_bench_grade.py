"""The grading benchmark grades notebooks that pass: a benchmark of failing copies measures
nothing (it once built lesson 04's solution without the `run_tool` it calls)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

from looplab.grading import grade_folder

pytestmark = pytest.mark.slow  # seconds each: `make test` and `make quick` leave them out

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_grade.py"


def _bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH.parent))  # it imports its neighbours, as when run
    spec = importlib.util.spec_from_file_location("bench_grade", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmarks_exercise_notebook_passes_the_grader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook = _bench(monkeypatch).exercise()
    sources = [c.source for c in notebook.cells]
    assert any(s.startswith("def run_tool") for s in sources), "the solution calls run_tool"
    assert "check" in notebook.cells[-1].metadata["tags"]
    (tmp_path / "ada").mkdir()
    nbformat.write(notebook, tmp_path / "ada" / "04_the_loop_by_hand.ipynb")
    [grade] = grade_folder(tmp_path, jobs=1)
    assert (grade.status, grade.passed, grade.total) == ("passed", 8, 8), grade
