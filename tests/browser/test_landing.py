"""`make lab` opens on the lesson map, shown as a page, which links the other edition and back."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from labpage import RUN_ALL_MS, TOKEN, WAIT_MS, screenshot
from playwright.sync_api import Page, expect

ROOT = Path(__file__).resolve().parents[2]


def _default_url() -> str:
    """The page `make lab` opens, read from the Makefile."""
    found = re.search(r"--LabApp\.default_url=(\S+)", (ROOT / "Makefile").read_text())
    assert found, "make lab names no default_url"
    return found.group(1)


def test_make_lab_opens_on_a_page_linking_both_editions(
    page: Page, lab_url: str, lab_root: Path
) -> None:
    shutil.copyfile(ROOT / "notebooks" / "README.md", lab_root / "README.md")
    (lab_root / "zh-CN").mkdir()
    shutil.copyfile(ROOT / "notebooks" / "zh-CN" / "README.md", lab_root / "zh-CN" / "README.md")

    page.goto(f"{lab_url}{_default_url()}?token={TOKEN}", timeout=WAIT_MS)
    shown = page.locator(".jp-MarkdownViewer .jp-RenderedMarkdown").last
    expect(shown.get_by_role("heading", name="The lessons")).to_be_visible(timeout=RUN_ALL_MS)
    screenshot(page, "landing-en.png")

    shown.get_by_role("link", name="课程").click()
    chinese = page.locator(".jp-MarkdownViewer .jp-RenderedMarkdown").last
    expect(chinese.get_by_role("heading", name="课程")).to_be_visible(timeout=WAIT_MS)
    screenshot(page, "landing-zh.png")
    expect(chinese.get_by_role("link", name="The lessons")).to_be_visible()

    # a lesson's Chinese file name opens from its link, and its tab shows that name
    [lesson] = (ROOT / "notebooks" / "zh-CN").glob("01_*.ipynb")
    shutil.copyfile(lesson, lab_root / "zh-CN" / lesson.name)
    chinese.get_by_role("link", name=re.compile(r"^01 · ")).click()
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel")
    expect(tab).to_have_text(lesson.name, timeout=WAIT_MS)
    expect(page.locator(".jp-Notebook h1").first).to_contain_text("一次请求")
