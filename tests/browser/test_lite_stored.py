"""Before anything runs, the browser edition shows a lesson's stored outputs as JupyterLab
does: the same text in every output area, both editions.

The same lesson is opened in JupyterLab (a server on a copy of it) and in the browser
edition (build/site/lite/, `make lite`), each in headless Chromium at 1024×768 with every
cell in the page; the text of each code cell's output area is compared, cell by cell. A
notebook file keeps a multi-line output as a list of lines, and JupyterLab shows such a list
joined by commas (`,turn 2: ...`) unless the build wrote it as one string. A widget is
compared by its place only (JupyterLab draws it from the saved state). Screenshots of both
go to tests/browser/artifacts/. The site or Chromium missing skips the test, and fails it
under CI (the env var CI set).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from labpage import open_notebook, screenshot
from litepage import ROOT, LitePage, launch, lite_url
from playwright.sync_api import Page, sync_playwright

REQUIRED_IN_CI = True
NOTEBOOKS = ROOT / "notebooks"
LESSONS = ["05_stop_gates.ipynb", "zh-CN/05_停止条件_四道闸门.ipynb", "06_token_growth.ipynb",
           "zh-CN/06_token的增长.ipynb"]  # fmt: skip
# The text of each code cell's output area; a widget is its place, not its text.
OUTPUT_TEXTS = """() => Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell'))
  .map(cell => Array.from(cell.querySelectorAll('.jp-OutputArea-output')).map(o =>
     o.querySelector('.jupyter-widgets') ? '<widget>' : o.innerText.trim()))"""


# the first printed output of more than one line, scrolled to the top for the screenshot
FIRST_LINES = """() => { const o = Array.from(document.querySelectorAll('.jp-OutputArea-output'))
  .find(o => o.innerText.trim().includes('\\n')); if (o) o.scrollIntoView(); }"""


def _shot(page: Page, name: str) -> None:
    page.evaluate(FIRST_LINES)
    screenshot(page, name)


def _outputs(page: Page) -> list[list[str]]:
    page.wait_for_function("() => document.querySelectorAll('.jp-Notebook .jp-CodeCell')"
                           ".length > 0")
    texts: list[list[str]] = page.evaluate(OUTPUT_TEXTS)
    return texts


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_stored_outputs_look_as_in_jupyterlab_before_anything_runs(
    lesson: str, lite_site: str, chromium: str, lab_url: str, lab_root: Path
) -> None:
    shutil.copy(NOTEBOOKS / lesson, lab_root / Path(lesson).name)
    name = Path(lesson).stem
    with sync_playwright() as p:
        browser = launch(p, chromium)
        try:
            lab = browser.new_page(viewport={"width": 1024, "height": 768})
            open_notebook(lab, lab_url, Path(lesson).name)
            in_lab = _outputs(lab)
            _shot(lab, f"stored-lab-{name}.png")
            visit = LitePage(browser, lite_site)
            try:
                visit.page.goto(lite_url(lite_site, lesson))
                visit.page.wait_for_function(
                    "() => { const p = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                    " return !!(p && p.content && p.content.widgets.length > 1); }",
                    timeout=120_000)
                install, *in_lite = _outputs(visit.page)  # before the install cell runs
                _shot(visit.page, f"stored-lite-{name}.png")
            finally:
                visit.close()
        finally:
            browser.close()
    assert install == []
    commas = [line for cell in in_lite for text in cell for line in text.split("\n")
              if line.startswith(",")]  # fmt: skip
    assert commas == [], f"{lesson}: lines the browser edition starts with a comma"
    assert len(in_lite) == len(in_lab)
    differ = [(i, lab_cell, lite_cell) for i, (lab_cell, lite_cell)
              in enumerate(zip(in_lab, in_lite, strict=True)) if lab_cell != lite_cell]  # fmt: skip
    assert differ == [], f"{lesson}: outputs shown differently (cell, JupyterLab, browser)"
