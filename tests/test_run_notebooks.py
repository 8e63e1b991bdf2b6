"""`make notebooks` (tools/run_notebooks.py) stores the same bytes on every run."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path
from typing import Any

import nbformat
import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "run_notebooks.py"
VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"


def run(path: Path) -> None:
    runpy.run_path(str(TOOL))["run"](path)


def saved_state(nb: nbformat.NotebookNode) -> dict[str, Any]:
    state: dict[str, Any] = nb.metadata["widgets"][STATE]["state"]
    return state


def shown(nb: nbformat.NotebookNode) -> list[str]:
    return [
        o["data"][VIEW]["model_id"]
        for c in nb.cells
        for o in c.get("outputs", [])
        if VIEW in o.get("data", {})
    ]


@pytest.mark.slow  # seconds
def test_two_runs_store_identical_files_with_widgets_and_split_prints(tmp_path: Path) -> None:
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
    assert stored.cells[1].execution_count == 2 and stored.cells[2].execution_count is None
    (slider,) = shown(stored)
    assert saved_state(stored)[slider]["state"]["value"] == 3


def test_the_saved_state_is_what_the_outputs_show_and_it_is_complete(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import ipywidgets as W\n"
            "unseen = W.Button(description='never shown')\n"
            "a, b = W.IntSlider(value=1), W.IntText(value=1)\n"
            "link = W.jslink((a, 'value'), (b, 'value'))\n"
            "box = W.VBox([a, b])\n"
            "box"
        ),
        nbformat.v4.new_code_cell("a.value = 7  # a later cell changes a shown widget"),
    ]
    path = tmp_path / "lesson.ipynb"
    nbformat.write(nb, path)
    run(path)

    stored = nbformat.read(path, as_version=4)
    nbformat.validate(stored)
    state = saved_state(stored)
    (box,) = shown(stored)
    assert state[box]["model_name"] == "VBoxModel"
    names = sorted(entry["model_name"] for entry in state.values())
    assert "ButtonModel" not in names  # created, never shown: not saved
    assert names.count("LinkModel") == 1 and "IntSliderModel" in names and "IntTextModel" in names
    refs = set(re.findall(r"IPY_MODEL_(\w+)", json.dumps(state)))
    assert refs and refs <= state.keys()  # every model a saved model names is saved too
    slider = next(e for e in state.values() if e["model_name"] == "IntSliderModel")
    assert slider["state"]["value"] == 7  # the state at the end of the run
    layout = state[slider["state"]["layout"].removeprefix("IPY_MODEL_")]
    assert layout["model_name"] == "LayoutModel"
    assert None not in layout["state"].values()  # unset is the default: not stored
    # ids come from the lesson's name and the cell that made the model, not from the run
    assert all(re.fullmatch(r"[0-9a-f]{32}", model) for model in state)

