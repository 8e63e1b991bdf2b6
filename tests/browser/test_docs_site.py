"""The docs site in a real browser (fixtures: conftest.py): built once, every page read.

Every lesson page of every edition is opened at 1024×768 with every request off this
machine blocked, and checked: its title; turn viewers whose tool_use blocks each sit beside
their tool_result; plots loaded; every stored HTML output shown and no widget placeholder;
no console error; no broken internal link; nothing wider than the text column unless it
scrolls in its own box; one link to the same lesson, in the same language, in the browser
edition. Then the home pages, the language switch and offline search.
Screenshots go to artifacts/docs/. Skips without Chromium, playwright or the docs tools.
"""

from __future__ import annotations

import re
import runpy
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

expect = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'").expect

ARTIFACTS = Path(__file__).parent / "artifacts" / "docs"
LITE: dict[str, Any] = runpy.run_path(str(Path(__file__).parents[2] / "tools" / "build_lite.py"))
RUN_LABEL = {"": "Run in the browser", "zh-CN": "在浏览器中运行"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
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
# each tool_use sits beside its tool_result (same id), or beside "not run" when a gate
# stopped the run before the call ran
TURNS = """() => [...document.querySelectorAll('.looplab-turn')].map(t => ({
  visible: t.getClientRects().length > 0,
  pairs: [...t.querySelectorAll('.looplab-pair')].map(p => [
    p.querySelector('.looplab-tool-use')?.dataset.id,
    p.querySelector('.looplab-tool-result')?.dataset.toolUseId
      ?? (p.querySelector('.looplab-missing') ? 'not run' : undefined),
  ]),
}))"""
H1 = """h => { const c = h.cloneNode(true);
  c.querySelectorAll('.headerlink').forEach(a => a.remove()); return c.textContent.trim(); }"""
LINKS_CHECKED: dict[str, str | None] = {}


def broken_links(page: Any, site_url: str) -> list[str]:
    """Every link into the site must reach a page, and a #fragment an element on it. (The
    browser edition's app is not built here: `check_run_link` checks the links into it.)"""
    broken = []
    for href in page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)"):
        url, _, fragment = href.partition("#")
        if not url.startswith(site_url) or url.startswith(lite_app(site_url)):
            continue
        if url not in LINKS_CHECKED:
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    LINKS_CHECKED[url] = response.read().decode("utf-8", "replace")
            except urllib.error.URLError:
                LINKS_CHECKED[url] = None
        body = LINKS_CHECKED[url]
        fragment = urllib.parse.unquote(fragment)
        if body is None or (fragment and not re.search(f'id="{re.escape(fragment)}"', body)):
            broken.append(href)
    return broken


def lite_app(site_url: str) -> str:
    return f"{site_url}{LITE['SITE_FOLDER']}/{LITE['APP']}"


def check_run_link(page: Any, site_url: str, edition: str, lesson: str) -> None:
    """The page's one link to the browser edition opens the same lesson in the same language:
    the notebook it names is on the site where the browser edition's build puts it."""
    link = page.locator("a.looplab-run")
    assert link.count() == 1 and link.inner_text() == RUN_LABEL[edition]
    href = link.evaluate("a => a.href")
    assert href.startswith(lite_app(site_url) + "?") and href.isascii()
    [path] = urllib.parse.parse_qs(urllib.parse.urlsplit(href).query)["path"]
    assert path == f"{edition}/{lesson}".lstrip("/")
    notebook = f"{site_url}{LITE['SITE_FOLDER']}/files/{urllib.parse.quote(path)}"
    with urllib.request.urlopen(notebook, timeout=10) as response:
        assert response.status == 200


def check_turns(page: Any, html: list[dict[str, Any]]) -> int:
    turns = sum("".join(o["data"]["text/html"]).count('class="looplab-turn"') for o in html)
    shown = page.evaluate(TURNS)
    assert len(shown) == turns and all(t["visible"] for t in shown)
    pairs = [pair for t in shown for pair in t["pairs"]]
    assert all(use and result in (use, "not run") for use, result in pairs), pairs
    if turns:
        assert any(use == result for use, result in pairs), "no tool_use/tool_result pair"
    return turns


def test_lesson_page(visit: Any, docs_site: Any, docs_page: tuple[str, str]) -> None:
    edition, lesson = docs_page
    page = visit.page
    page.goto(docs_site.address(edition, lesson))
    assert page.url.isascii()
    title = docs_site.title(edition, lesson)
    assert page.locator("article h1").first.evaluate(H1) == title
    assert page.title().startswith(title)

    outputs = docs_site.outputs(edition, lesson)
    widgets = [o for o in outputs if WIDGET_VIEW in o.get("data", {})]
    assert all("text/html" in o["data"] for o in widgets), "a widget stored without its HTML view"
    html = [o for o in outputs if "text/html" in o.get("data", {})]
    assert page.locator(".cell_output .output.text_html").count() == len(html)
    turns = check_turns(page, html)
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
    assert broken_links(page, docs_site.url) == []
    check_run_link(page, docs_site.url, edition, lesson)

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = f"{edition or 'en'}-{lesson[:-6]}"
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    if turns:
        page.locator(".looplab-turn").first.screenshot(path=str(ARTIFACTS / f"{name}-turn.png"))
    if images:
        page.locator(".cell_output img").first.screenshot(path=str(ARTIFACTS / f"{name}-plot.png"))
    assert visit.problems == []


def test_home_pages_and_language_switch(visit: Any, docs_site: Any) -> None:
    page, url = visit.page, docs_site.url
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for path in ("index.html", "lessons.html", "zh-CN/index.html"):
        page.goto(url + path)
        assert page.locator("article h1").count() == 1
        assert page.locator("a.looplab-run").count() == 0  # no lesson: nothing to run
        assert page.evaluate(STICKING_OUT) == []
        assert broken_links(page, url) == []
        page.screenshot(path=str(ARTIFACTS / path.replace("/", "-").replace(".html", ".png")))
    page.goto(url)
    assert page.locator("article h1").inner_text().startswith("looplab")
    assert page.locator(".sidebar-tree a.reference").count() >= len(docs_site.lessons)

    # the twin has the same number (its file name is Chinese) and its page the same name
    twin = docs_site.zh[0]
    page.goto(docs_site.address("", twin))
    page.locator(".looplab-language a", has_text="中文").click()
    assert page.url == docs_site.address("zh-CN", twin)
    assert page.locator("html").get_attribute("lang") == "zh-CN"
    assert page.locator("article h1").first.evaluate(H1) == docs_site.title("zh-CN", twin)
    page.locator(".looplab-language a", has_text="English").click()
    assert page.url == docs_site.address("", twin)
    # a lesson with no twin links to the other edition's home page
    alone = next((n for n in docs_site.lessons if n[:2] not in {z[:2] for z in docs_site.zh}),
                 None)
    if alone:
        page.goto(docs_site.address("", alone))
        page.locator(".looplab-language a", has_text="中文").click()
        assert page.url == f"{url}zh-CN/index.html"
    assert visit.problems == []


@pytest.mark.parametrize(("edition", "query"), [("", "stop_reason"), ("zh-CN", "循环")])
def test_search_works_offline(visit: Any, docs_site: Any, edition: str, query: str) -> None:
    page = visit.page
    folder = f"{edition}/" if edition else ""
    page.goto(f"{docs_site.url}{folder}search.html?q={urllib.parse.quote(query)}")
    # a result's summary is fetched after its title shows: wait for the query in it
    expect(page.locator("#search-results ul.search li").first).to_contain_text(query)
    summary = page.locator("#search-results .search-summary")
    expect(summary).to_contain_text("搜索完成" if edition else "Search finished")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"search-{edition or 'en'}.png"))
    assert visit.problems == []


def test_a_search_hit_is_shown_in_prose_not_in_a_diagrams_labels(
    visit: Any, docs_site: Any
) -> None:
    """Lesson 04 draws the loop, its gates among the labels ("token budget"): the hit is
    shown in a sentence of the page, not in the labels run together (`…yesno…`)."""
    page = visit.page
    page.goto(f"{docs_site.url}search.html?q={urllib.parse.quote('token budget')}")
    expect(page.locator("#search-results .search-summary")).to_contain_text("Search finished")
    contexts = page.locator("#search-results ul.search li p.context")
    expect(contexts.first).to_contain_text("token", ignore_case=True)
    shown = contexts.all_inner_texts()
    run_together = [text for text in shown if re.search(r"yesno|noyes|\]gates|turnmessages", text)]
    assert run_together == [], run_together
    # and the diagram is there, drawn: an image the browser could read
    page.goto(docs_site.address("", next(n for n in docs_site.lessons if n.startswith("04"))))
    diagrams = page.locator(".looplab-diagram img")
    expect(diagrams.first).to_be_visible()
    drawn = diagrams.evaluate_all("images => images.map(i => i.complete && i.naturalWidth)")
    assert drawn and all(width and width > 100 for width in drawn), drawn
