"""The browser edition against local JupyterLab: `python benchmarks/bench_lite.py`.

Prints the size of build/site/lite/ (`make lite`), and the time from opening lesson 01 to its
first output (its cells run in order up to the first one that shows something) in the browser
edition, served on 127.0.0.1, and in JupyterLab on this machine, in the same headless
Chromium. The browser edition starts Python in the page (Pyodide) with looplab and its
dependencies loaded (tools/lite/environment.py), so it is slower; both are measured,
interleaved, in one run of this script, so the ratio is fair on a busy machine. Each opening
is a first visit (a fresh browser context, no cache). The goals: the site within 80 MB, the
first output within 3x of local JupyterLab's.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from goals import judged  # noqa: E402
from labserver import TOKEN, jupyter_lab, serve  # noqa: E402
from litepage import SITE, LitePage, launch, lite_url  # noqa: E402
from playwright.sync_api import Browser, sync_playwright  # noqa: E402

SIZE_GOAL_MB = 80
GOAL = 3.0
LESSON = ROOT / "notebooks" / "01_one_request_one_response.ipynb"


def first_output_index(lesson: Path) -> int:
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    return next(i for i, c in enumerate(cells) if c.get("outputs"))


def seconds_to_first_output(browser: Browser, site: str, url: str, last: int) -> float:
    """Open `url`, run cells 0..`last`; seconds until cell `last` has output."""
    visit = LitePage(browser, site)
    try:
        start = time.perf_counter()
        visit.open(url)
        for index in range(last + 1):
            outputs = visit.run(index)
        elapsed = time.perf_counter() - start
        assert outputs, f"cell {last} of {url} showed nothing"
        assert not visit.off_site, visit.off_site
        return elapsed
    finally:
        visit.close()


def size_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def main(rounds: int = 2) -> int:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not (SITE / "index.html").exists() or not Path(chromium).exists():
        print(f"skipped: needs the browser edition ({SITE}: make lite) and Chromium")
        return 0
    first = first_output_index(LESSON)
    lite = local = float("inf")
    with tempfile.TemporaryDirectory() as tmp, serve(SITE) as site, sync_playwright() as p:
        root = Path(tmp) / "root"
        root.mkdir()
        shutil.copy(LESSON, root)
        browser = launch(p, chromium)
        with jupyter_lab(root, Path(tmp)) as lab:
            lab_page = f"{lab}/lab/tree/{quote(LESSON.name)}?token={TOKEN}"
            for _ in range(rounds):
                # the browser edition's notebooks have one more cell first: %pip install looplab
                # (looplab is there already: it prints nothing)
                lite = min(lite, seconds_to_first_output(
                    browser, site, lite_url(site, LESSON.name), first + 1))
                local = min(local, seconds_to_first_output(browser, lab + "/", lab_page, first))
        browser.close()
    size = size_mb(SITE)
    ratio = lite / local
    print(f"browser edition, build/site/lite/:      {size:5.0f} MB "
          f"(goal <= {SIZE_GOAL_MB} MB) {'ok' if size <= SIZE_GOAL_MB else 'OVER GOAL'}")
    print(f"{LESSON.stem}, open -> first output:")
    print(f"  local JupyterLab:                     {local:5.1f} s")
    print(f"  browser edition (Pyodide):            {lite:5.1f} s")
    print(judged("browser/local", ratio, GOAL, digits=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
