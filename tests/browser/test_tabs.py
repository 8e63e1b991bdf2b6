"""Both editions of a lesson open side by side in JupyterLab: the tabs tell them apart.

A tab shows the notebook's file name, so the Chinese lessons have Chinese file names
(`05_停止条件_四道闸门.ipynb` beside `05_stop_gates.ipynb`). The screenshot goes to
`artifacts/`.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from labpage import RUN_ALL_MS, WAIT_MS, WIDGET_VIEW, command, open_notebook, screenshot
from playwright.sync_api import Page, expect

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NUMBER = "05"
TAB = ".lm-DockPanel-tabBar .lm-TabBar-tab"


def test_the_two_editions_tabs_differ_and_the_chinese_one_is_in_chinese(
    page: Page, lab_url: str, lab_root: Path
) -> None:
    [english] = NOTEBOOKS.glob(f"{NUMBER}_*.ipynb")
    [chinese] = (NOTEBOOKS / "zh-CN").glob(f"{NUMBER}_*.ipynb")
    (lab_root / "zh-CN").mkdir()
    shutil.copy(english, lab_root / english.name)
    shutil.copy(chinese, lab_root / "zh-CN" / chinese.name)
    open_notebook(page, lab_url, english.name)
    command(page, "docmanager:open",
            {"path": f"zh-CN/{chinese.name}", "options": {"mode": "split-right"}})
    tabs = page.locator(f"{TAB} .lm-TabBar-tabLabel")
    expect(tabs).to_have_count(2, timeout=WAIT_MS)
    expect(tabs).to_have_text([english.name, chinese.name])
    assert english.name != chinese.name and re.search(r"[\u4e00-\u9fff]", chinese.name)
    # side by side: two panels, each with its own lesson's title on screen
    expect(page.locator(".jp-Notebook")).to_have_count(2)
    expect(page.locator(".jp-Notebook h1").nth(1)).to_contain_text("停止条件")
    expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible(timeout=RUN_ALL_MS)
    screenshot(page, "tabs_en_zh_side_by_side.png")



def without_widget_state(lesson: Path) -> dict[str, Any]:
    """The lesson as JSON without its stored widgets: JupyterLab's widget manager, with
    "save widget state" on (`make lab`), marks a notebook modified as it restores them."""
    notebook = json.loads(lesson.read_text(encoding="utf-8"))
    notebook["metadata"].pop("widgets", None)
    for cell in notebook["cells"]:
        outputs = cell.get("outputs", [])
        cell["outputs"] = [o for o in outputs if WIDGET_VIEW not in o.get("data", {})]
    return notebook


def test_an_untouched_lesson_does_not_open_as_modified(
    page: Page, lab_url: str, lab_root: Path
) -> None:
    """The stored kernel name and language info are the ones the kernel reports: opening a
    lesson and starting its kernel changes nothing, so its tab has no "modified" dot."""
    names = []
    for folder in (NOTEBOOKS, NOTEBOOKS / "zh-CN"):
        [lesson] = folder.glob(f"{NUMBER}_*.ipynb")
        target = lab_root / lesson.relative_to(NOTEBOOKS)
        target.parent.mkdir(exist_ok=True)
        target.write_text(json.dumps(without_widget_state(lesson)), encoding="utf-8")
        names.append(str(lesson.relative_to(NOTEBOOKS)))
    open_notebook(page, lab_url, names[0])
    command(page, "docmanager:open", {"path": names[1], "options": {"mode": "split-right"}})
    expect(page.locator(".jp-Notebook")).to_have_count(2, timeout=WAIT_MS)
    expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible(timeout=RUN_ALL_MS)
    page.wait_for_timeout(3_000)  # the kernel's info arrives after its first idle
    expect(page.locator(f"{TAB} .lm-TabBar-tabLabel")).to_have_count(2)
    expect(page.locator(f"{TAB}.jp-mod-dirty")).to_have_count(0)
