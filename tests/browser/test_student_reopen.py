"""The student's path: open a lesson, Run All, save, close it (its kernel shut down), reopen
it. Every widget is back, in both editions, because `make lab` turns on the widget
manager's `saveState` (tools/lab/overrides.d/looplab.json; the test server reads the same file).

Without it JupyterLab saves the new outputs but not the widgets' state, and on reopening
every widget cell reads "Error displaying widget: model not found".
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import nbformat
import pytest
from labpage import (
    RUN_ALL_MS,
    WAIT_MS,
    WIDGET_OUTPUT,
    WIDGET_VIEW,
    command,
    open_notebook,
    screenshot,
)
from playwright.sync_api import Page, expect

ROOT = Path(__file__).resolve().parents[2]
NUMBER = "05"  # stop gates: TurnViewers and a LiveRun, 7 widget outputs
CONTROLS = {"": ("Step", "Run to end", "Reset"), "zh-CN": ("单步", "跑到结束", "重置")}


def shipped(edition: str, number: str = NUMBER) -> Path:
    """The edition's lesson with this number (the Chinese edition's file name is Chinese)."""
    [lesson] = (ROOT / "notebooks" / edition).glob(f"{number}_*.ipynb")
    return lesson


def widget_outputs(path: Path) -> int:
    nb = nbformat.read(path, as_version=4)
    return sum(WIDGET_VIEW in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))


def save(page: Page, path: Path) -> None:
    """Save, and wait until the file on disk is the whole new notebook (a file being written
    can be seen empty or cut short)."""
    before = path.stat().st_mtime_ns
    command(page, "docmanager:save")
    deadline = time.monotonic() + WAIT_MS / 1000
    while path.stat().st_mtime_ns == before or not readable(path):
        assert time.monotonic() < deadline, "JupyterLab did not save the lesson"
        time.sleep(0.2)


def readable(path: Path) -> bool:
    try:
        nbformat.read(path, as_version=4)
    except (ValueError, OSError):  # nbformat's NotJSONError is a ValueError
        return False
    return True


def close_all(page: Page) -> None:
    """Close every tab. A widget that changed after the save marks the lesson modified
    again, and JupyterLab then asks whether to save: what the test checks is on disk."""
    command(page, "application:close-all")
    discard = page.locator(".jp-Dialog").get_by_role("button", name="Discard")
    notebooks = page.locator(".jp-Notebook")
    deadline = time.monotonic() + WAIT_MS / 1000
    while notebooks.count() and time.monotonic() < deadline:
        if discard.count():
            discard.first.click()
        time.sleep(0.2)
    expect(notebooks).to_have_count(0)


@pytest.mark.parametrize("edition", ["", "zh-CN"], ids=["en", "zh-CN"])
def test_a_lesson_run_saved_and_reopened_shows_every_widget(
    page: Page, lab_url: str, lab_root: Path, edition: str
) -> None:
    lesson = shipped(edition)
    shutil.copy(lesson, lab_root / lesson.name)
    open_notebook(page, lab_url, lesson.name)
    command(page, "notebook:run-all-cells")
    busy = page.locator(".jp-InputPrompt", has_text="[*]")
    expect(busy.first).to_be_visible(timeout=WAIT_MS)
    expect(busy).to_have_count(0, timeout=4 * RUN_ALL_MS)
    save(page, lab_root / lesson.name)
    saved = widget_outputs(lab_root / lesson.name)
    assert saved == widget_outputs(lesson) >= 7

    close_all(page)
    # closed for the day: its kernel, which still held the widgets, is gone too
    page.evaluate("() => window.jupyterapp.serviceManager.sessions.shutdownAll()")
    page.reload()
    open_notebook(page, lab_url, lesson.name)
    # its tab: the file name, Chinese in the Chinese edition
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel")
    expect(tab).to_have_text(lesson.name)
    assert (lesson.name == shipped("").name) == (edition == "")
    notebook = page.locator(".jp-Notebook")
    expect(page.locator(WIDGET_OUTPUT)).to_have_count(saved, timeout=RUN_ALL_MS)
    expect(notebook).not_to_contain_text("Error displaying widget")
    expect(notebook).not_to_contain_text("Loading widget")
    for label in CONTROLS[edition]:
        expect(notebook.get_by_role("button", name=label, exact=True)).to_be_visible()
    page.get_by_role("button", name=CONTROLS[edition][0], exact=True).scroll_into_view_if_needed()
    screenshot(page, f"student_reopened_05_{edition or 'en'}.png")


def test_chinese_lesson_06_shows_the_articles_numbers_and_chinese_controls(
    page: Page, lab_url: str, lab_root: Path
) -> None:
    lesson = shipped("zh-CN", "06")
    shutil.copy(lesson, lab_root / lesson.name)
    open_notebook(page, lab_url, lesson.name)
    command(page, "notebook:trust")
    page.locator(".jp-Dialog .jp-mod-accept").click()
    notebook = page.locator(".jp-Notebook")
    fit = notebook.get_by_text("拟合结果：S = 400，Δ = 300")
    expect(fit).to_be_visible(timeout=WAIT_MS)
    for words in ("17,500", "65,000", "3.71×", "缓存写入和建模结果一致： True"):
        expect(notebook).to_contain_text(words)
    for label in ("prompt caching（提示缓存）", "每 5 轮压缩历史"):  # the explorer's checkboxes
        expect(notebook.locator(f".widget-checkbox span[title='{label}']")).to_be_visible()
    fit.scroll_into_view_if_needed()
    screenshot(page, "zh_06_fit_and_plot.png")
    notebook.locator(".widget-checkbox").first.scroll_into_view_if_needed()
    screenshot(page, "zh_06_explorer.png")
