"""The browser edition (build/site/lite/, `make lite`) served on 127.0.0.1 and opened in a
Chromium that can reach nothing else: for test_lite.py and benchmarks/bench_lite.py.

A page runs a lesson's cells one at a time through JupyterLab's own command (`notebook:run-cell`)
and reads each cell's outputs from the notebook model, as nbformat JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from playwright.sync_api import Browser, BrowserContext, Page, Playwright, Route

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site" / "lite"
# the Pyodide kernel's start (13-20 s) and `import anthropic` (5-8 s) on a busy machine
KERNEL_MS = 180_000
CELL_MS = 120_000
# what the test page adds to the site's settings: `window.jupyterapp` (to run cells and read
# outputs), and every cell in the page, not only those scrolled into view
TEST_CONFIG = {"exposeAppInBrowser": "true", "settingsOverrides": {
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}}
# nothing but 127.0.0.1 resolves, and the page's own requests are checked as well
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]


def lite_url(site: str, path: str) -> str:
    """Where the site at `site` opens the notebook at `path` (relative to its files)."""
    return f"{site}lab/index.html?path={quote(path)}"


def launch(p: Playwright, executable: str) -> Browser:
    return p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)


class LitePage:
    """One lesson in its own browser context; `off_site` lists requests to any other host."""

    def __init__(self, browser: Browser, site: str) -> None:
        self.site = site
        self.off_site: list[str] = []
        self.context: BrowserContext = browser.new_context(
            viewport={"width": 1024, "height": 768})
        self.context.route("**/*", self._route)
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(20_000)

    def _route(self, route: Route) -> None:
        url = route.request.url
        if urlsplit(url).netloc != urlsplit(self.site).netloc and not url.startswith(
                ("data:", "blob:")):
            self.off_site.append(url)
            route.abort()
        elif urlsplit(url).path.endswith("/jupyter-lite.json"):
            response = route.fetch()
            config = response.json()
            config.setdefault("jupyter-config-data", {}).update(TEST_CONFIG)
            route.fulfill(response=response, body=json.dumps(config))
        else:
            route.continue_()

    def open(self, url: str) -> None:
        """Open a notebook at `url` (see `lite_url`) and wait until its kernel is idle."""
        self.page.goto(url)
        self.page.wait_for_function(
            """() => { const p = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                       const k = p && p.sessionContext && p.sessionContext.session
                                 && p.sessionContext.session.kernel;
                       return !!(p && p.content && p.content.widgets.length && k
                                 && k.status === 'idle'); }""",
            timeout=KERNEL_MS)

    def cells(self) -> list[dict[str, Any]]:
        """The notebook's cells as the page has them (nbformat JSON)."""
        cells: list[dict[str, Any]] = self.page.evaluate(
            "() => window.jupyterapp.shell.currentWidget.content.widgets"
            ".map(w => w.model.toJSON())")
        return cells

    def run(self, index: int, timeout_ms: int = CELL_MS) -> list[dict[str, Any]]:
        """Run cell `index` and wait until it has finished; return its outputs."""
        done = self.page.evaluate(
            """async ([i, ms]) => {
                 const app = window.jupyterapp, nb = app.shell.currentWidget.content;
                 nb.activeCellIndex = i;
                 const late = new Promise(r => setTimeout(() => r('late'), ms));
                 const ran = await Promise.race([app.commands.execute('notebook:run-cell'), late]);
                 return ran !== 'late';
               }""", [index, timeout_ms])
        assert done, f"cell {index} did not finish within {timeout_ms / 1000:.0f} s"
        outputs: list[dict[str, Any]] = self.cells()[index].get("outputs", [])
        return outputs

    def close(self) -> None:
        self.context.close()
