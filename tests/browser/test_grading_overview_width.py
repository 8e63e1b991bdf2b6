"""The gradebook page is readable at 1024×768: a class of 16 lessons, long names, eight-digit
ids and long hints fits the width of the window in headless Chromium, no sideways scroll."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from looplab.grading.marks import make_gradebook
from looplab.grading.report import render_html
from looplab.grading.results import Grade, Row
from looplab.grading.roster import Student, match

pytestmark = pytest.mark.browser

NAMES = ["Hugo", "Ana María", "张三", "O'Brien", "Maximiliana Fernández-Castellanos"]
MEASURE = (
    "<script>const d = document.documentElement, g = document.querySelector('table.grid');"
    "document.title = 'window=' + d.clientWidth + ' page=' + d.scrollWidth + ' grid=' + "
    "g.getBoundingClientRect().right + ' top=' + g.getBoundingClientRect().bottom;</script>"
)


def _book() -> str:
    hint = "NameError: name 'next_action' is not defined " * 4
    grades = [
        Grade(name.lower(), f"{n:02d}_a_lesson_with_a_long_title_{n}.ipynb",
              "timeout" if (k + n) % 5 == 0 else "failed",
              tuple(Row("check_next_action(next_action)", f"check {j}", j != 1, hint)
                    for j in range(3)),  # 6.67 of 10 points: the widest number
              "cell 3 ran over 60 s and was interrupted" if (k + n) % 5 == 0 else "")  # fmt: skip
        for k, name in enumerate(NAMES)
        for n in range(1, 17)
    ]
    roster = [Student(str(20261000 + i), n) for i, n in enumerate(NAMES)]
    return render_html(make_gradebook(grades, roster=match({g.student for g in grades}, roster)))


def test_the_students_by_lessons_grid_fits_1024_pixels(tmp_path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium here")
    page = _book()
    assert page.count('<td class="n') == len(NAMES) * (16 + 2)  # a cell per lesson, total, %
    (tmp_path / "book.html").write_text(page.replace("</body>", MEASURE + "</body>"),
                                        encoding="utf-8")  # fmt: skip
    dom = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1024,768",
         "--dump-dom", (tmp_path / "book.html").as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    found = re.search(r"<title>window=(\d+) page=(\d+) grid=([\d.]+) top=([\d.]+)</title>", dom)
    assert found, dom[:300]
    window, page_width, grid, bottom = map(float, found.groups())
    assert page_width <= window and grid <= window  # no sideways scroll, every total seen
    assert bottom <= 768  # the whole grid in the first screen
