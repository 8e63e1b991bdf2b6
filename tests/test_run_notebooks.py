"""`make notebooks` (tools/run_notebooks.py) stores the same bytes on every run."""

from __future__ import annotations

import runpy
from pathlib import Path

import nbformat

TOOL = Path(__file__).resolve().parents[1] / "tools" / "run_notebooks.py"


def test_two_runs_store_identical_files_with_widgets_and_split_prints(tmp_path: Path) -> None:
    run = runpy.run_path(str(TOOL))["run"]
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        # a print split over several flushes, and a widget (random model id on every run)
        nbformat.v4.new_code_cell(
            "import sys, time\nprint('a', end='')\nsys.stdout.flush()\ntime.sleep(0.3)\nprint('b')"
        ),
        nbformat.v4.new_code_cell("import ipywidgets\nipywidgets.IntSlider(value=3)"),
        nbformat.v4.new_code_cell("print('live only')", metadata={"tags": ["skip-execution"]}),
    ]
    path = tmp_path / "lesson.ipynb"
    nbformat.write(nb, path)

    run(path)
    first = path.read_bytes()
    run(path)
    assert path.read_bytes() == first

    stored = nbformat.read(path, as_version=4)
    assert stored.cells[0].outputs == [{"name": "stdout", "output_type": "stream", "text": "ab\n"}]
    assert "widgets" not in stored.metadata
    assert stored.cells[1].execution_count == 2 and stored.cells[2].execution_count is None
