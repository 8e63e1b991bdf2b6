"""JupyterLab on 127.0.0.1 and headless Chromium via Playwright, for the browser tests.

The notebooks here are opened by the tests in a real browser, not compared by nbval.
Everything skips when the `playwright` package or a system Chromium is missing (no browser
is ever downloaded). Every wait has a timeout, and the server is always stopped. Every test
here is marked `browser`: `make browser` runs them, `make test` and `make quick` leave them out.

For test_docs_site.py: the docs site, built once by tools/build_docs.py from a copy of the
lessons and served on 127.0.0.1, and a headless Chromium page at 1024×768 that may reach
nothing but that server. The Chinese edition is the real notebooks/zh-CN/ when it has
lessons; until then, two English lessons copied under a Chinese title stand in for it (in
the temporary copy only). The browser edition is not built, but its notebooks are laid out
in the site's lite/files/ by its build's own function, so the lesson pages' links into it
can be followed. Each test that uses `docs_page` runs once per lesson page.
"""

from __future__ import annotations

import functools
import json
import os
import runpy
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from labserver import jupyter_lab, serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser

collect_ignore_glob = ["*.ipynb"]

HERE = Path(__file__).parent
# a laptop screen: what a class has
VIEWPORT = {"width": 1024, "height": 768}


def _chromium() -> str | None:
    for candidate in (shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


try:
    from labpage import WAIT_MS
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    SKIP = "the playwright package is missing: pip install -e '.[test]'"
else:
    SKIP = (
        ""
        if _chromium()
        else "no Chromium found (/usr/bin/chromium or `chromium` on PATH); "
        "on Debian/Ubuntu: apt-get install chromium"
    )


@pytest.hookimpl(tryfirst=True)  # before `-m "not browser"` deselects them
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            # a module with REQUIRED_IN_CI fails instead, when the env var CI is set
            module = getattr(item, "module", None)
            required = os.environ.get("CI") and getattr(module, "REQUIRED_IN_CI", False)
            if SKIP and not required:
                item.add_marker(pytest.mark.skip(reason=SKIP))


@pytest.fixture(scope="session")
def chromium() -> str | None:
    """Chromium's executable, if there is one."""
    return _chromium()


@pytest.fixture(scope="module")
def lite_site() -> Iterator[str]:
    """The browser edition (`make lite`) served over HTTP, for a module's tests; without it a
    skip, and under CI a failure."""
    from litepage import SITE

    if not (SITE / "index.html").exists():
        reason = f"no browser edition in {SITE}: make lite"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (required under CI)")
        pytest.skip(reason)
    with serve(SITE) as url:
        yield url


@pytest.fixture
def lab_root(tmp_path: Path) -> Path:
    """The folder the server serves; tests put their notebooks in it."""
    root = tmp_path / "root"
    root.mkdir()
    return root


@pytest.fixture
def lab_url(tmp_path: Path, lab_root: Path) -> Iterator[str]:
    """A JupyterLab server on a free loopback port, serving `lab_root`."""
    with jupyter_lab(lab_root, tmp_path) as url:
        yield url


@pytest.fixture
def page(lab_url: str) -> Iterator[Page]:
    """A 1024×768 Chromium page on the server; `open_notebook` points it at a notebook."""
    chromium = _chromium()
    assert chromium is not None
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium,
            args=[
                "--no-sandbox",  # root in containers; the page is a local test server
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
            ],
        )
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(WAIT_MS)
            yield page
        finally:
            browser.close()


# -- the docs site ---------------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
LESSON_GLOB = "[0-9][0-9]_*.ipynb"
BUILD_TIMEOUT_S = 600


def outputs(notebook: Path) -> list[dict[str, Any]]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [o for c in cells for o in c.get("outputs", [])]


def title(notebook: Path) -> str:
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        for line in "".join(cell["source"]).splitlines():
            if cell["cell_type"] == "markdown" and line.startswith("# "):
                return line[2:].strip()
    raise AssertionError(f"{notebook.name} has no title")


def _stand_in(lesson: Path, target: Path) -> None:
    """A throwaway 'translation': the English lesson under a Chinese title and sentence."""
    nb = json.loads(lesson.read_text(encoding="utf-8"))
    rest = "".join(nb["cells"][0]["source"]).split("\n", 1)[1]
    heading = f"# {lesson.name[:2]} · 中文测试副本\n\n模型、工具和一个循环。\n"
    nb["cells"][0]["source"] = heading + rest
    target.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")


def _stand_in_picks(lessons: list[str]) -> list[str]:
    """Two lessons for the stand-in edition: one with a turn viewer, one with a plot."""
    def has(name: str, marker: str) -> bool:
        return any(marker in json.dumps(o) for o in outputs(NOTEBOOKS / name))
    picks = {next((n for n in lessons if has(n, marker)), None)
             for marker in ("looplab-turn", "image/png")}
    return sorted(n for n in picks if n) or lessons[:1]


LESSONS = sorted(p.name for p in NOTEBOOKS.glob(LESSON_GLOB))
REAL_ZH = sorted(p.name for p in (NOTEBOOKS / "zh-CN").glob(LESSON_GLOB))
ZH = REAL_ZH or _stand_in_picks(LESSONS)
DOCS_PAGES = [("", name) for name in LESSONS] + [("zh-CN", name) for name in ZH]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "docs_page" in metafunc.fixturenames:
        ids = [f"{edition or 'en'}/{name}" for edition, name in DOCS_PAGES]
        metafunc.parametrize("docs_page", DOCS_PAGES, ids=ids)


@dataclass(frozen=True)
class DocsSite:
    root: Path  # notebooks/ (the copy it was built from) and site/
    url: str  # where it is served, ending in "/"
    lessons: list[str]
    zh: list[str]

    def notebook(self, edition: str, lesson: str) -> Path:
        return self.root / "notebooks" / edition / lesson

    def outputs(self, edition: str, lesson: str) -> list[dict[str, Any]]:
        return outputs(self.notebook(edition, lesson))

    def title(self, edition: str, lesson: str) -> str:
        return title(self.notebook(edition, lesson))

    def address(self, edition: str, lesson: str) -> str:
        """A lesson's page: named after the English lesson with its number, in every
        edition (tools/build_docs.py), so the Chinese pages have ASCII addresses."""
        english = next((n for n in self.lessons if n[:2] == lesson[:2]), lesson)
        return f"{self.url}{edition + '/' if edition else ''}{english.removesuffix('.ipynb')}.html"


def _build(root: Path) -> None:
    (root / "notebooks" / "zh-CN").mkdir(parents=True)
    for readme in REPO.glob("README*.md"):
        shutil.copy(readme, root)
    for name in [*LESSONS, "README.md"]:
        shutil.copy(NOTEBOOKS / name, root / "notebooks")
    if REAL_ZH and (NOTEBOOKS / "zh-CN" / "README.md").exists():  # its lesson map
        shutil.copy(NOTEBOOKS / "zh-CN" / "README.md", root / "notebooks" / "zh-CN")
    for name in ZH:
        if REAL_ZH:
            shutil.copy(NOTEBOOKS / "zh-CN" / name, root / "notebooks" / "zh-CN")
        else:
            _stand_in(NOTEBOOKS / name, root / "notebooks" / "zh-CN" / name)
    command = [sys.executable, str(REPO / "tools" / "build_docs.py"), "--notebooks",
               str(root / "notebooks"), "--out", str(root / "site"), "--work", str(root / "work")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    assert done.returncode == 0, done.stdout + done.stderr
    lite = runpy.run_path(str(REPO / "tools" / "build_lite.py"))
    lite["contents"](root / "notebooks", root / "site" / lite["SITE_FOLDER"] / "files")


# module scope, not session: Playwright's sync API runs an event loop in this thread while it
# is open, which would break every later test that calls asyncio.run or starts Playwright
@pytest.fixture(scope="module")
def docs_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocsSite]:
    """The site built once from a copy of the lessons, served on a free loopback port."""
    pytest.importorskip("sphinx", reason="the docs tools are missing: pip install -e '.[docs]'")
    root = tmp_path_factory.mktemp("docs")
    _build(root)

    with serve(root / "site") as url:
        yield DocsSite(root, url, LESSONS, ZH)


@pytest.fixture(scope="module")
def docs_browser() -> Iterator[Browser]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is missing: pip install -e '.[test]'"
    )
    executable = _chromium()
    if executable is None:
        pytest.skip("no Chromium found (/usr/bin/chromium or `chromium` on PATH); "
                    "on Debian/Ubuntu: apt-get install chromium")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=executable,
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

    def __init__(self, browser: Browser, url: str) -> None:
        self.problems: list[str] = []
        self.page: Page = browser.new_page(viewport={"width": 1024, "height": 768})
        self.page.set_default_timeout(20_000)
        self.page.route("**/*", functools.partial(self._only_site, url))
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("response", self._response)

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.problems.append(f"console: {message.text}")

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self.problems.append(f"{response.status} {response.url}")

    def _only_site(self, url: str, route: Any) -> None:
        if route.request.url.startswith(url):
            route.continue_()
        else:
            self.problems.append(f"request off the site: {route.request.url}")
            route.abort()


@pytest.fixture
def visit(docs_browser: Browser, docs_site: DocsSite) -> Iterator[Visit]:
    v = Visit(docs_browser, docs_site.url)
    try:
        yield v
    finally:
        v.page.close()
