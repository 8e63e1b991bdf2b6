"""A lesson run by `make notebooks`, opened in JupyterLab and trusted, shows its turns from
the widget state stored in it, without being run again.

A fresh copy of a lesson is not trusted, so JupyterLab shows each widget's HTML copy. Once
it is trusted, JupyterLab shows the widgets themselves, which needs their stored state:
without it every widget cell reads "Error displaying widget: model not found". (Saving a
lesson writes the state of the widgets run since it was opened, `saveState` in
tools/lab/overrides.d/looplab.json: test_student_reopen.py runs, saves and reopens one.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
from labpage import (
    RUN_ALL_MS,
    WIDGET_OUTPUT,
    WIDGET_VIEW,
    command,
    open_notebook,
    screenshot,
    scroll_to_top,
)
from playwright.sync_api import Page, expect

ROOT = Path(__file__).resolve().parents[2]
LESSON = "05_stop_gates.ipynb"  # one TurnViewer per stop gate


def test_a_trusted_lesson_shows_its_stored_turns(page: Page, lab_url: str, lab_root: Path) -> None:
    # in its own process: nbclient's event loop and Playwright's do not share a thread
    tool = [sys.executable, str(ROOT / "tools" / "run_notebooks.py")]
    subprocess.run([*tool, str(ROOT / "notebooks" / LESSON), "--into", str(lab_root)], check=True)
    stored = nbformat.read(lab_root / LESSON, as_version=4)
    shown = sum(
        WIDGET_VIEW in o.get("data", {}) for c in stored.cells for o in c.get("outputs", [])
    )
    assert shown >= 1

    open_notebook(page, lab_url, LESSON)
    copies = page.locator(".jp-OutputArea-output[data-mime-type='text/html'] .looplab-turn")
    expect(copies.first).to_be_visible(timeout=RUN_ALL_MS)
    command(page, "notebook:trust")
    page.locator(".jp-Dialog .jp-mod-accept").click()
    widgets = page.locator(WIDGET_OUTPUT)
    expect(widgets).to_have_count(shown)
    for widget in widgets.all():
        expect(widget.locator(".looplab-turn >> visible=true")).to_have_count(1)
    notebook = page.locator(".jp-Notebook")
    expect(notebook).not_to_contain_text("Error displaying widget")
    expect(notebook).not_to_contain_text("Loading widget")

    # the slider still steps through the turns: the browser does it, no kernel is involved
    first = widgets.first
    scroll_to_top(first)
    turn = first.locator(".looplab-turn >> visible=true")
    last = int(turn.get_attribute("data-turn") or 0)
    assert last >= 2
    first.locator(".noUi-handle").focus()
    page.keyboard.press("Home")
    expect(turn).to_have_attribute("data-turn", "1")
    screenshot(page, "trusted_lesson_1024x768.png")
