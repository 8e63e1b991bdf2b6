"""The lessons quote the article as a reader has it: no lesson says the article lacks a list,
a formula or a section (the published article has them all); a lesson says what the article
says, or that a table or a quiz is its own."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from editions import LESSON_GLOB, NOTEBOOKS

PAGES = [*sorted(NOTEBOOKS.glob(LESSON_GLOB)), *sorted((NOTEBOOKS / "zh-CN").glob(LESSON_GLOB))]
LOST = re.compile(
    r"copy\s+(of\s+the\s+article\s+)?these\s+lessons|did\s+not\s+survive|missing\s+from\s+the\s+copy|"
    r"headings?\s+only|依据的(那份文章|版本|文章版本)|丢失了|缺失了|只有标题|缺了这份",
    re.I,
)


def text(page: Path) -> str:
    if page.suffix == ".md":
        return page.read_text(encoding="utf-8")
    return "\n".join(c.source for c in nbformat.read(page, 4).cells if c.cell_type == "markdown")


@pytest.mark.parametrize(
    "page", [*PAGES, NOTEBOOKS / "README.md", NOTEBOOKS / "zh-CN" / "README.md"],
    ids=lambda p: p.relative_to(NOTEBOOKS).as_posix()[:12],
)  # fmt: skip
def test_no_page_says_the_article_lost_what_it_has(page: Path) -> None:
    assert LOST.findall(text(page)) == []


def test_lesson_06_says_the_articles_formula_gives_its_numbers() -> None:
    for page in PAGES:
        if page.name.startswith("06_"):
            said = text(page)
            assert "17,500" in said and "65,000" in said, page.name
