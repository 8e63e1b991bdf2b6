"""The docs site in a real browser: built once, served on 127.0.0.1, read in headless Chromium.

The site is built by tools/build_docs.py from a copy of the lessons. The Chinese edition is
the real notebooks/zh-CN/ when it has lessons; until then, two English lessons copied with a
Chinese title stand in for it (in the temporary copy only). Every page is opened at
1024×768 with every request off this machine blocked, and checked: its title, turn viewers
with each tool_use paired with its tool_result, plots loaded, every stored HTML output
shown and no widget placeholder, no console error, no broken internal link, no horizontal
scroll. Screenshots go to artifacts/docs/. Skips like test_lab.py without Chromium.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
REPO = HERE.parents[1]
NOTEBOOKS = REPO / "notebooks"
ARTIFACTS = HERE / "artifacts" / "docs"
LESSONS = sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
REAL_ZH = sorted(p.name for p in (NOTEBOOKS / "zh-CN").glob("[0-9][0-9]_*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
BUILD_TIMEOUT_S = 600


def _chromium() -> str | None:
    for candidate in (shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


try:
    import sphinx  # noqa: F401  (the docs extra)
    from playwright.sync_api import Browser, Page, expect, sync_playwright
except ImportError as missing:  # pragma: no cover - depends on the machine
    pytestmark = pytest.mark.skip(
        reason=f"{missing.name} is missing: pip install -e '.[test,docs]'"
    )
else:
    if _chromium() is None:
        pytestmark = pytest.mark.skip(
            reason="no Chromium found (/usr/bin/chromium or `chromium` on PATH); "
            "on Debian/Ubuntu: apt-get install chromium"
        )


def _outputs(notebook: Path) -> list[dict[str, Any]]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [o for c in cells for o in c.get("outputs", [])]


def _title(notebook: Path) -> str:
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        for line in "".join(cell["source"]).splitlines():
            if cell["cell_type"] == "markdown" and line.startswith("# "):
                return line[2:].strip()
    raise AssertionError(f"{notebook.name} has no title")


def _stand_in(lesson: Path, target: Path) -> None:
    """A throwaway 'translation': the English lesson under a Chinese title and sentence."""
    nb = json.loads(lesson.read_text(encoding="utf-8"))
    first = "".join(nb["cells"][0]["source"]).split("\n", 1)
    number = lesson.name[:2]
    nb["cells"][0]["source"] = f"# {number} · 中文测试副本\n\n模型、工具和一个循环。\n{first[1]}"
    target.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")


def _stand_in_picks() -> list[str]:
    """Two lessons for the stand-in edition: one with a turn viewer, one with a plot."""
    def has(name: str, marker: str) -> bool:
        return any(marker in json.dumps(o) for o in _outputs(NOTEBOOKS / name))
    turns = next(n for n in LESSONS if has(n, "looplab-turn"))
    plot = next(n for n in LESSONS if has(n, "image/png"))
    return sorted({turns, plot})


ZH = REAL_ZH or _stand_in_picks()
PAGES = [("", name) for name in LESSONS] + [("zh-CN", name) for name in ZH]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from a copy of the lessons (and the README beside them)."""
    root = tmp_path_factory.mktemp("docs")
    (root / "notebooks" / "zh-CN").mkdir(parents=True)
    for readme in REPO.glob("README*.md"):
        shutil.copy(readme, root)
    for name in [*LESSONS, "README.md"]:
        shutil.copy(NOTEBOOKS / name, root / "notebooks")
    for name in ZH:
        if REAL_ZH:
            shutil.copy(NOTEBOOKS / "zh-CN" / name, root / "notebooks" / "zh-CN")
        else:
            _stand_in(NOTEBOOKS / name, root / "notebooks" / "zh-CN" / name)
    command = [sys.executable, str(REPO / "tools" / "build_docs.py"), "--notebooks",
               str(root / "notebooks"), "--out", str(root / "site"), "--work", str(root / "work")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    assert done.returncode == 0, done.stdout + done.stderr
    return root


@pytest.fixture(scope="module")
def base_url(site: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(site / "site"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    chromium = _chromium()
    assert chromium is not None
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium,
            args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--no-first-run"],
        )
        try:
            yield browser
        finally:
            browser.close()


class Visit:
    """One browser page at 1024×768 that may reach only the site; records every problem."""

    def __init__(self, browser: Browser, base_url: str) -> None:
        self.problems: list[str] = []
        self.page: Page = browser.new_page(viewport={"width": 1024, "height": 768})
        self.page.set_default_timeout(20_000)
        self.page.route("**/*", functools.partial(self._only_site, base_url))
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("response", self._response)

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.problems.append(f"console: {message.text}")

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self.problems.append(f"{response.status} {response.url}")

    def _only_site(self, base_url: str, route: Any) -> None:
        if route.request.url.startswith(base_url):
            route.continue_()
        else:
            self.problems.append(f"request off the site: {route.request.url}")
            route.abort()


@pytest.fixture
def visit(browser: Browser, base_url: str) -> Iterator[Visit]:
    v = Visit(browser, base_url)
    try:
        yield v
    finally:
        v.page.close()


def _broken_links(page: Page, base_url: str, checked: dict[str, str | None]) -> list[str]:
    """Every link into the site must reach a page, and a #fragment an element on it."""
    broken = []
    for href in page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)"):
        url, _, fragment = href.partition("#")
        if not url.startswith(base_url):
            continue
        if url not in checked:
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    checked[url] = response.read().decode("utf-8", "replace")
            except urllib.error.URLError:
                checked[url] = None
        body = checked[url]
        fragment = urllib.parse.unquote(fragment)
        if body is None or (fragment and not re.search(f'id="{re.escape(fragment)}"', body)):
            broken.append(href)
    return broken


LINKS_CHECKED: dict[str, str | None] = {}
# Elements wider than the text column that do not scroll inside a box of their own: the
# theme clips the page sideways, so these would be cut off (or overlap the sidebars).
STICKING_OUT = """() => {
  const column = document.querySelector('.content').getBoundingClientRect();
  const out = [];
  for (const e of document.querySelectorAll('article *')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.right <= column.right + 1) continue;
    let p = e.parentElement, inside = false;
    while (p && p.tagName !== 'ARTICLE' && !inside) {
      const scrolls = ['auto', 'scroll'].includes(getComputedStyle(p).overflowX);
      inside = scrolls && p.getBoundingClientRect().right <= column.right + 1;
      p = p.parentElement;
    }
    if (!inside) out.push(`${e.tagName.toLowerCase()}.${e.className}: right edge ${r.right}px`);
  }
  return out.slice(0, 5);
}"""


@pytest.mark.parametrize(("edition", "lesson"), PAGES, ids=[f"{e or 'en'}/{n}" for e, n in PAGES])
def test_lesson_page(visit: Visit, site: Path, base_url: str, edition: str, lesson: str) -> None:
    notebook = site / "notebooks" / edition / lesson
    page = visit.page
    page.goto(f"{base_url}{edition + '/' if edition else ''}{lesson[:-6]}.html")
    title = _title(notebook)
    h1 = page.locator("article h1").first.evaluate(
        "h => { const c = h.cloneNode(true); c.querySelectorAll('.headerlink').forEach("
        "a => a.remove()); return c.textContent.trim(); }")
    assert h1 == title and page.title().startswith(title)

    outputs = _outputs(notebook)
    widgets = [o for o in outputs if WIDGET_VIEW in o.get("data", {})]
    assert all("text/html" in o["data"] for o in widgets), "a widget stored without its HTML view"
    html = [o for o in outputs if "text/html" in o.get("data", {})]
    assert page.locator(".cell_output .output.text_html").count() == len(html)
    turns = sum("".join(o["data"]["text/html"]).count('class="looplab-turn"') for o in html)
    # each tool_use sits beside its tool_result (same id), or beside "not run" when a gate
    # stopped the run before the call ran
    pairs = page.evaluate("""() => [...document.querySelectorAll('.looplab-turn')].map(t => ({
        visible: t.getClientRects().length > 0,
        pairs: [...t.querySelectorAll('.looplab-pair')].map(p => [
            p.querySelector('.looplab-tool-use')?.dataset.id,
            p.querySelector('.looplab-tool-result')?.dataset.toolUseId
                ?? (p.querySelector('.looplab-missing') ? 'not run' : undefined),
        ]),
    }))""")
    assert len(pairs) == turns
    assert all(t["visible"] for t in pairs)
    shown = [pair for t in pairs for pair in t["pairs"]]
    assert all(use and result in (use, "not run") for use, result in shown), shown
    if turns:
        assert any(use == result for use, result in shown), "no tool_use/tool_result pair"

    images = [o for o in outputs if "image/png" in o.get("data", {})]
    loaded = page.eval_on_selector_all(
        ".cell_output img", "imgs => imgs.map(i => i.complete && i.naturalWidth > 0)")
    assert loaded == [True] * len(images)

    text = page.locator("article").inner_text()
    for placeholder in ("Error displaying widget", "Loading widget", WIDGET_VIEW, '"model_id"'):
        assert placeholder not in text
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"horizontal scroll: page {widths[0]}px in {widths[1]}px"
    assert page.evaluate(STICKING_OUT) == []
    assert _broken_links(page, base_url, LINKS_CHECKED) == []

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = f"{edition or 'en'}-{lesson[:-6]}"
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    if turns:
        page.locator(".looplab-turn").first.screenshot(path=str(ARTIFACTS / f"{name}-turn.png"))
    if images:
        page.locator(".cell_output img").first.screenshot(path=str(ARTIFACTS / f"{name}-plot.png"))
    assert visit.problems == []


def test_home_pages_and_language_switch(visit: Visit, site: Path, base_url: str) -> None:
    page = visit.page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for path in ("index.html", "lessons.html", "zh-CN/index.html"):
        page.goto(base_url + path)
        assert page.locator("article h1").count() == 1
        assert page.evaluate(STICKING_OUT) == []
        assert _broken_links(page, base_url, LINKS_CHECKED) == []
        page.screenshot(path=str(ARTIFACTS / path.replace("/", "-").replace(".html", ".png")))
    page.goto(base_url)
    assert page.locator("article h1").inner_text().startswith("looplab")
    assert page.locator(".sidebar-tree a.reference").count() >= len(LESSONS)

    twin = ZH[0][:-6]
    page.goto(f"{base_url}{twin}.html")
    page.locator(".looplab-language a", has_text="中文").click()
    assert page.url == f"{base_url}zh-CN/{twin}.html"
    assert page.locator("html").get_attribute("lang") == "zh-CN"
    page.locator(".looplab-language a", has_text="English").click()
    assert page.url == f"{base_url}{twin}.html"
    # a lesson with no twin links to the other edition's home page
    alone = next((n for n in LESSONS if n not in ZH), None)
    if alone:
        page.goto(f"{base_url}{alone[:-6]}.html")
        page.locator(".looplab-language a", has_text="中文").click()
        assert page.url == f"{base_url}zh-CN/index.html"
    assert visit.problems == []


@pytest.mark.parametrize(("edition", "query"), [("", "stop_reason"), ("zh-CN", "循环")])
def test_search_works_offline(visit: Visit, base_url: str, edition: str, query: str) -> None:
    page = visit.page
    folder = f"{edition}/" if edition else ""
    page.goto(f"{base_url}{folder}search.html?q={urllib.parse.quote(query)}")
    results = page.locator("#search-results ul.search li")
    # a result's summary is fetched after its title shows: wait for the query in it
    expect(results.first).to_contain_text(query)
    page.screenshot(path=str(ARTIFACTS / f"search-{edition or 'en'}.png"))
    assert visit.problems == []
