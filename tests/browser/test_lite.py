"""The browser edition runs the lessons as their stored outputs say.

Serves build/site/lite/ (`make lite`, or `make docs`) on 127.0.0.1 and opens lessons 01-05 and
08 of both editions in headless Chromium, each in a page of its own that reaches no other
host. Runs every code cell in order, one at a time (JupyterLab's Run All would stop at the
first error, and many lessons show one on purpose), the added `%pip install looplab` first,
then checks each cell against the lesson as stored in notebooks/:

- error output on exactly the cells tagged `raises-exception`, the same error as stored;
- the same printed text and the same text results, after the rules of tests/nbval-sanitize.cfg;
- a widget view rendered wherever the stored output has a widget;
- no request to another host.

The one thing only the browser prints is allowed, at most once per lesson: the warning that
tool timeouts are not enforced there (no thread can start).

A plot shown by matplotlib is not compared (there is no matplotlib in the browser). The site
or Chromium missing skips the test, and fails it under CI (the env var CI set).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from litepage import ROOT, LitePage, launch, lite_url
from playwright.sync_api import Browser, expect, sync_playwright

REQUIRED_IN_CI = True  # conftest: under CI a missing Chromium fails these tests
NOTEBOOKS = ROOT / "notebooks"
NUMBERS = ["01", "02", "03", "04", "05", "08", "17", "19", "20", "21"]
"""The lessons run whole in the browser (18's parallel workers need threads and 22's sandbox
processes: the README lists them under what needs a local install)."""
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SKIPPED = {"nbval-skip", "skip-execution"}
# What only the browser prints, once per kernel: tool timeouts cannot be enforced there.
# Said as one sentence (looplab's warnings.formatwarning), not as Python's warning line.
BROWSER_ONLY = re.compile(r"^looplab: [^\n]*\n", re.MULTILINE)
SANITIZE = ROOT / "tests" / "nbval-sanitize.cfg"


def lessons() -> list[Path]:
    found = []
    for number in NUMBERS:
        found += sorted(NOTEBOOKS.glob(f"{number}_*.ipynb"))
        found += sorted((NOTEBOOKS / "zh-CN").glob(f"{number}_*.ipynb"))
    return found


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (required under CI)")
    pytest.skip(reason)


# module scope: Playwright's sync API runs an event loop in this thread while it is open
@pytest.fixture(scope="module")
def lite_browser(chromium: str | None) -> Any:
    executable = chromium
    if executable is None:
        unavailable("no Chromium found (/usr/bin/chromium or `chromium` on PATH); "
                    "on Debian/Ubuntu: apt-get install chromium")
    assert executable is not None
    with sync_playwright() as p:
        browser = launch(p, executable)
        try:
            yield browser
        finally:
            browser.close()


# -- what is compared ----------------------------------------------------------------------

def _sanitize_rules() -> list[tuple[re.Pattern[str], str]]:
    """The rules nbval applies (a `regex: ` line directly followed by a `replace: ` line)."""
    text = SANITIZE.read_text(encoding="utf-8")
    pairs = re.findall(r"^regex: (.*)$\n^replace: (.*)$", text, re.M)
    return [(re.compile(regex), replace) for regex, replace in pairs]


RULES = _sanitize_rules()


def sanitized(text: str | list[str]) -> str:
    text = "".join(text)
    for regex, replace in RULES:
        text = regex.sub(replace, text)
    return text


def error_name(ename: str) -> str:
    """`BadRequestError` for IPython's `BadRequestError` and Pyodide's
    `<class 'anthropic.BadRequestError'>`."""
    return re.sub(r"^<class '(.*)'>$", r"\1", ename).rsplit(".", 1)[-1]


def key_outputs(cell_outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """What must match: printed text per stream, errors, text results, widget views."""
    keys: dict[str, Any] = {"stdout": "", "stderr": "", "errors": [], "results": []}
    for output in cell_outputs:
        kind = output["output_type"]
        if kind == "stream":
            keys[output["name"]] += sanitized(output["text"])
        elif kind == "error":
            keys["errors"].append((error_name(output["ename"]), sanitized(output["evalue"])))
        elif WIDGET_VIEW in output["data"]:
            keys["results"].append("<widget>")
        elif ("image/png" in output["data"]
              or "looplab-missing-figure" in output["data"].get("text/html", "")):
            keys["results"].append("<figure>")  # a plot, or in the browser the note in its place
        else:
            keys["results"].append(sanitized(output["data"].get("text/plain", "")))
    return keys


# -- the test --------------------------------------------------------------------------------

@pytest.mark.parametrize("lesson", lessons(), ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_lesson_runs_in_the_browser_as_stored(
    lesson: Path, lite_site: str, lite_browser: Browser
) -> None:
    stored = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    visit = LitePage(lite_browser, lite_site)
    try:
        visit.open(lite_url(lite_site, str(lesson.relative_to(NOTEBOOKS))))
        install, *shown = visit.cells()
        assert "lite-install" in install["metadata"].get("tags", [])
        assert [c["source"] for c in shown] == ["".join(c["source"]) for c in stored]
        problems = [f"%pip install: {o}" for o in visit.run(0) if o["output_type"] == "error"]
        problems += run_and_compare(visit, stored)
        problems += widget_problems(visit, stored)
        problems += [f"request to another host: {url}" for url in visit.off_site]
        assert not problems, f"{lesson.name} in the browser:\n" + "\n".join(problems)
    finally:
        visit.close()


def run_and_compare(visit: LitePage, stored: list[dict[str, Any]]) -> list[str]:
    """Run the lesson's code cells in order (cell i of the lesson is cell i + 1 of the page,
    after the install cell); what differs from the stored outputs."""
    problems, said = [], 0
    for index, cell in enumerate(stored):
        tags = set(cell["metadata"].get("tags", []))
        if cell["cell_type"] != "code" or tags & SKIPPED:
            continue
        new, old = key_outputs(visit.run(index + 1)), key_outputs(cell["outputs"])
        new["stderr"], n = BROWSER_ONLY.subn("", new["stderr"])
        said += n
        where = f"cell {index} ({''.join(cell['source']).splitlines()[0][:50]!r})"
        if bool(new["errors"]) != ("raises-exception" in tags):
            problems.append(f"{where}: errors {new['errors']}, tags {sorted(tags)}")
        for key in old:
            if new[key] != old[key]:
                problems.append(f"{where}: {key}\n  stored:  {old[key]!r:.400}\n"
                                f"  browser: {new[key]!r:.400}")
    if said > 1:
        problems.append(f"the browser's warning about timeouts was shown {said} times, not once")
    return problems


def widget_problems(visit: LitePage, stored: list[dict[str, Any]]) -> list[str]:
    """A rendered widget view for each stored widget output, and no widget that failed."""
    page = visit.page
    page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets"
                  ".forEach((w, i) => { w.node.dataset.liteCell = String(i); })")
    problems = []
    for index, cell in enumerate(stored):
        views = sum(WIDGET_VIEW in o.get("data", {}) for o in cell.get("outputs", []))
        if views:
            rendered = page.locator(f'[data-lite-cell="{index + 1}"] .jp-OutputArea-output '
                                    "> .jupyter-widgets")
            try:
                expect(rendered).to_have_count(views)
                expect(rendered.first).to_be_visible()
            except AssertionError as error:
                problems.append(f"cell {index}: no widget view ({error})")
    notebook = page.locator(".jp-Notebook").inner_text()
    problems += [f"the page says {text!r}" for text in ("Error displaying widget",
                                                        "Loading widget") if text in notebook]
    return problems


def test_each_lesson_is_there_in_both_editions() -> None:
    assert len(lessons()) == 2 * len(NUMBERS), lessons()
