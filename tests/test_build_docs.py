"""tools/build_docs.py: which editions are built, how their pages are laid out and linked.

These check the staging and the language switch without running Sphinx; the built site
itself is checked in a browser by tests/browser/test_docs_site.py.
"""

from __future__ import annotations

import json
import runpy
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
tool: dict[str, Any] = runpy.run_path(str(REPO / "tools" / "build_docs.py"))
lite: dict[str, Any] = runpy.run_path(str(REPO / "tools" / "build_lite.py"))
EN, ZH = tool["EDITIONS"]


def lesson(path: Path, title: str) -> None:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [f"# {title}\n", "\n", "Text."]}]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A README beside notebooks/ with two English lessons, one translated (under a name
    in its own language, as the Chinese lessons are)."""
    (tmp_path / "README.md").write_text(
        "# looplab\n\n[first](notebooks/01_a.ipynb), [goals](notebooks/02_b.ipynb#goals), "
        "[web](https://example.org/x.ipynb), [tool](tools/x.py)\n", encoding="utf-8")
    lesson(tmp_path / "notebooks" / "01_a.ipynb", "01 · A")
    lesson(tmp_path / "notebooks" / "02_b.ipynb", "02 · B")
    (tmp_path / "notebooks" / "README.md").write_text("# The lessons\n\n[a](01_a.ipynb)\n")
    lesson(tmp_path / "notebooks" / "zh-CN" / "01_甲.ipynb", "01 · 甲")
    return tmp_path


def test_the_home_page_is_the_readme_with_lesson_links_pointing_at_the_pages(repo: Path) -> None:
    src = repo / "src"
    names = tool["stage"](EN, repo / "notebooks", src)
    assert names == ["01_a", "02_b", "index", "lessons"]
    index = (src / "index.md").read_text(encoding="utf-8")
    assert "[first](01_a.ipynb)" in index and "[goals](02_b.ipynb#goals)" in index
    # links to the web and to files that are no page are left alone
    assert "(https://example.org/x.ipynb)" in index and "(tools/x.py)" in index
    assert index.endswith("```{toctree}\n:hidden:\n:caption: Lessons\n\nlessons\n01_a\n02_b\n```\n")
    assert (src / "lessons.md").read_text() == "# The lessons\n\n[a](01_a.ipynb)\n"
    assert (src / "01_a.ipynb").read_bytes() == (repo / "notebooks" / "01_a.ipynb").read_bytes()


def test_a_translation_without_its_own_readme_gets_a_home_page_listing_its_lessons(
    repo: Path,
) -> None:
    src = repo / "src-zh"
    assert tool["stage"](ZH, repo / "notebooks", src) == ["01_a", "index"]
    index = (src / "index.md").read_text(encoding="utf-8")
    assert index.startswith("# looplab 中文版\n") and "- [01 · 甲](01_a.ipynb)" in index
    assert ":caption: 课程\n\n01_a\n```" in index
    assert (src / "01_a.ipynb").read_bytes() == (repo / "notebooks/zh-CN/01_甲.ipynb").read_bytes()


def test_a_translated_page_is_named_after_the_english_lesson_with_its_number(
    repo: Path,
) -> None:
    """Paired by number, not by file name: the page's address is ASCII and the same in
    both editions; a lesson with no English one keeps its own name."""
    lesson(repo / "notebooks" / "zh-CN" / "03_丙.ipynb", "03 · 丙")
    assert tool["stage"](ZH, repo / "notebooks", repo / "src-zh") == ["01_a", "03_丙", "index"]
    lesson(repo / "notebooks" / "zh-CN" / "01_乙.ipynb", "01 · 乙")
    with pytest.raises(SystemExit, match="two lessons in .* have the same number"):
        tool["stage"](ZH, repo / "notebooks", repo / "src-zh")


def test_a_translation_with_a_readme_uses_it(repo: Path) -> None:
    (repo / "README.zh-CN.md").write_text("# 首页\n\n[甲](notebooks/zh-CN/01_甲.ipynb)\n",
                                          encoding="utf-8")
    src = repo / "src-zh"
    tool["stage"](ZH, repo / "notebooks", src)
    assert (src / "index.md").read_text().startswith("# 首页\n\n[甲](01_a.ipynb)\n")


def test_staging_again_drops_a_lesson_that_is_gone_and_keeps_unchanged_files(
    repo: Path,
) -> None:
    src = repo / "src"
    tool["stage"](EN, repo / "notebooks", src)
    mtime = (src / "01_a.ipynb").stat().st_mtime_ns
    (repo / "notebooks" / "02_b.ipynb").unlink()
    assert tool["stage"](EN, repo / "notebooks", src) == ["01_a", "index", "lessons"]
    assert not (src / "02_b.ipynb").exists()
    assert (src / "01_a.ipynb").stat().st_mtime_ns == mtime


def test_the_switch_links_each_page_to_its_twin_or_else_to_the_other_home() -> None:
    pages = {EN: ["01_a", "02_b", "index", "lessons"], ZH: ["01_a", "index"]}
    [to_zh] = tool["switch"](EN, pages)
    assert to_zh["label"] == "中文" and to_zh["lang"] == "zh-CN"
    assert to_zh["twins"] == {"01_a": "zh-CN/01_a.html", "index": "zh-CN/index.html"}
    assert to_zh["home"] == "zh-CN/index.html"  # for 02_b and lessons
    [to_en] = tool["switch"](ZH, pages)
    assert to_en["label"] == "English" and to_en["lang"] == "en"
    assert to_en["twins"] == {"01_a": "../01_a.html", "index": "../index.html"}


def test_english_alone_has_no_switch() -> None:
    assert tool["switch"](EN, {EN: ["01_a", "index"]}) == []


def test_only_editions_with_lessons_are_built(repo: Path) -> None:
    assert tool["editions_in"](repo / "notebooks") == [EN, ZH]
    (repo / "notebooks" / "zh-CN" / "01_甲.ipynb").unlink()
    assert tool["editions_in"](repo / "notebooks") == [EN]


def test_no_english_lessons_is_a_clear_error(tmp_path: Path) -> None:
    lesson(tmp_path / "notebooks" / "zh-CN" / "01_a.ipynb", "01 · 甲")
    with pytest.raises(SystemExit, match=r"no lessons \(\[0-9\]\[0-9\]_\*\.ipynb\) in "):
        tool["editions_in"](tmp_path / "notebooks")


def test_it_never_overwrites_a_folder_that_holds_no_earlier_site(repo: Path) -> None:
    out = repo / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit, match="is not empty and holds no earlier site"):
        tool["build"](repo / "notebooks", out, repo / "work")
    assert (out / "notes.txt").read_text() == "mine"


def test_it_builds_beside_the_browser_edition_alone_and_keeps_it(tmp_path: Path) -> None:
    """`make lite` before `make docs` leaves only lite/ in the site: that is no stranger."""
    out = tmp_path / "site"
    (out / lite["SITE_FOLDER"]).mkdir(parents=True)
    (out / lite["SITE_FOLDER"] / "index.html").write_text("lite")
    assert tool["replaceable"](out) and tool["replaceable"](tmp_path / "none")
    (out / "old.html").write_text("an earlier page")
    (out / ".buildinfo").write_text("")
    tool["clear"](out)
    assert [p.name for p in out.iterdir()] == [lite["SITE_FOLDER"]]
    (out / "lite.txt").write_text("mine")
    assert not tool["replaceable"](out)


def run_link_target(edition: Any, href: str) -> str:
    """The notebook a page's run link opens, after checking it opens the browser edition's
    notebook app from where the page is."""
    url = urllib.parse.urlsplit(href)
    assert url.path == f"{edition.up}{lite['SITE_FOLDER']}/{lite['APP']}" and href.isascii()
    [path] = urllib.parse.parse_qs(url.query)["path"]
    return path


def test_a_lesson_page_runs_the_same_lesson_in_its_language_in_the_browser(repo: Path) -> None:
    notebooks = repo / "notebooks"
    assert {n: run_link_target(EN, h) for n, h in tool["run_links"](EN, notebooks).items()} == {
        "01_a": "01_a.ipynb", "02_b": "02_b.ipynb"}
    assert {n: run_link_target(ZH, h) for n, h in tool["run_links"](ZH, notebooks).items()} == {
        "01_a": "zh-CN/01_甲.ipynb"}


@pytest.fixture(scope="module")
def lite_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real lessons as the browser edition's build lays them out (its own function)."""
    files = tmp_path_factory.mktemp("lite") / "files"
    lite["contents"](REPO / "notebooks", files)
    return files


@pytest.mark.parametrize("edition", [EN, ZH], ids=["en", "zh-CN"])
def test_every_lesson_page_links_a_notebook_of_the_browser_edition(
    edition: Any, lite_files: Path, tmp_path: Path,
) -> None:
    """The real lessons: one run link per lesson page, to a notebook the browser edition has."""
    notebooks = REPO / "notebooks"
    links = tool["run_links"](edition, notebooks)
    pages = tool["stage"](edition, notebooks, tmp_path / "src")
    assert sorted(links) == sorted(set(pages) - {"index", "lessons"})
    targets = [run_link_target(edition, href) for href in links.values()]
    assert [t for t in targets if not (lite_files / t).is_file()] == []
    assert sorted(targets) == sorted(p.relative_to(notebooks).as_posix()
                                     for p in edition.lessons(notebooks))


def test_links_between_the_editions_home_pages_point_at_the_built_pages(repo: Path) -> None:
    (repo / "README.md").write_text(
        "# looplab\n\n中文版：[README.zh-CN.md](README.zh-CN.md), [lessons](notebooks/zh-CN/), "
        "[甲](notebooks/zh-CN/01_甲.ipynb)\n",
        encoding="utf-8")
    (repo / "README.zh-CN.md").write_text(
        "# looplab 中文版\n\n[English](README.md), [第一课](notebooks/zh-CN/01_甲.ipynb), "
        "[英文第二课](notebooks/02_b.ipynb#goals)\n", encoding="utf-8")
    tool["stage"](EN, repo / "notebooks", repo / "src")
    en = (repo / "src" / "index.md").read_text(encoding="utf-8")
    assert ('<a href="zh-CN/index.html">README.zh-CN.md</a>, '
            '<a href="zh-CN/index.html">lessons</a>, <a href="zh-CN/01_a.html">甲</a>') in en
    tool["stage"](ZH, repo / "notebooks", repo / "src-zh")
    zh = (repo / "src-zh" / "index.md").read_text(encoding="utf-8")
    assert ('<a href="../index.html">English</a>, [第一课](01_a.ipynb), '
            '<a href="../02_b.html#goals">英文第二课</a>') in zh


def test_links_between_the_editions_lesson_maps_point_at_the_built_pages(repo: Path) -> None:
    (repo / "notebooks" / "README.md").write_text(
        "# The lessons\n\n中文版：[zh-CN/README.md](zh-CN/README.md)\n", encoding="utf-8")
    (repo / "notebooks" / "zh-CN" / "README.md").write_text(
        "# 课程\n\nEnglish: [../README.md](../README.md)\n", encoding="utf-8")
    tool["stage"](EN, repo / "notebooks", repo / "src")
    en = (repo / "src" / "lessons.md").read_text(encoding="utf-8")
    assert '<a href="zh-CN/lessons.html">zh-CN/README.md</a>' in en
    tool["stage"](ZH, repo / "notebooks", repo / "src-zh")
    zh = (repo / "src-zh" / "lessons.md").read_text(encoding="utf-8")
    assert '<a href="../lessons.html">../README.md</a>' in zh



def test_the_pages_workflow_publishes_the_browser_edition_with_the_site() -> None:
    """GitHub Pages gets what `make docs` built: the pages, and the browser edition that
    `make docs` then builds into the same folder (build_lite.py's default)."""
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    runs = [step.get("run") for step in steps]
    [upload] = [i for i, step in enumerate(steps)
                if step.get("uses", "").startswith("actions/upload-pages-artifact")]
    assert "make docs" in runs[:upload]
    site = REPO / steps[upload]["with"]["path"]
    makefile = (REPO / "Makefile").read_text()
    recipe = makefile.split("\ndocs:", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    assert [line.split()[1] for line in recipe] == ["tools/build_docs.py", "tools/build_lite.py"]
    assert lite["OUT"].parent == site
