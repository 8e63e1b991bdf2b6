"""The browser edition's kernel starts with what every lesson imports: looplab and its
dependencies are there before any cell runs, and modules (theirs and the standard library's)
are read as compiled bytecode, not compiled from source on each first visit.

A lesson of both editions is opened in build/site/lite/ (`make lite`) in headless Chromium that
reaches nothing but the site; a cell added in the page (the lesson's own cells untouched, its
`%pip install looplab` not run) imports what a lesson's first code cell imports. The speed this
buys is measured by benchmarks/bench_lite.py. The site or Chromium missing skips the test, and
fails it under CI (the env var CI set).
"""

from __future__ import annotations

import json

import pytest
from litepage import SITE, LitePage, launch, lite_url
from playwright.sync_api import sync_playwright

REQUIRED_IN_CI = True
LESSONS = ["01_one_request_one_response.ipynb", "zh-CN/01_一次请求一次响应.ipynb"]
PROBE = """\
import json, os, typing
import looplab, anthropic
from looplab.lessons.demo import demo_tools
print(json.dumps({m.__name__: m.__spec__.cached if os.path.exists(m.__spec__.cached) else None
                  for m in (looplab, anthropic)} | {"typing": typing.__file__}))"""
ADD_CELL = """async (code) => { const app = window.jupyterapp, nb = app.shell.currentWidget.content;
  nb.activeCellIndex = 0; await app.commands.execute('notebook:insert-cell-above');
  nb.activeCell.model.sharedModel.setSource(code); }"""


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_imports_looplab_before_anything_is_installed(
    lesson: str, lite_site: str, chromium: str
) -> None:
    if not (SITE / "files" / lesson).exists():
        pytest.skip(f"{lesson} is not in this build of the browser edition")
    with sync_playwright() as p:
        browser = launch(p, chromium)
        visit = LitePage(browser, lite_site)
        try:
            visit.open(lite_url(lite_site, lesson))
            visit.page.evaluate(ADD_CELL, PROBE)
            outputs = visit.run(0)
            assert not visit.off_site, visit.off_site
        finally:
            visit.close()
            browser.close()
    errors = [o for o in outputs if o["output_type"] == "error"]
    assert errors == [], f"{lesson}: {errors}"
    found = json.loads("".join(o["text"] for o in outputs if o.get("name") == "stdout"))
    for module in ("looplab", "anthropic"):  # each wheel's own __pycache__, as installed
        assert (found[module] or "").endswith(".cpython-314.pyc"), found
    assert found["typing"].endswith("/typing.pyc"), found  # the standard library's zip
