"""Build the docs site from the lessons' stored outputs: `make docs` writes build/site/.

    python tools/build_docs.py                          # notebooks/ -> build/site/
    python tools/build_docs.py --notebooks DIR --out DIR --work DIR

Nothing runs: each lesson page shows the outputs stored in its notebook, the ones nbval
compares in `make test`; no kernel, no network, no API key. There is one Sphinx build per
edition: English at the site's root from notebooks/NN_*.ipynb, and each translation that
has lessons (notebooks/zh-CN/NN_*.ipynb) in its own folder (zh-CN/), so each edition gets
a search index in its own language. A translated lesson's file name is in its own language
(notebooks/zh-CN/01_一次请求一次响应.ipynb); its page takes the name of the English lesson
with the same number (zh-CN/01_one_request_one_response.html), so every page has an ASCII
address and its twin in another edition has the same name there. Every page links to its
twin in the other editions, or to that edition's home page when it has no twin, and every
lesson page to the same lesson in the browser edition (tools/build_lite.py, built into the
site's lite/ folder by `make docs`). Why Sphinx, and its settings: docs/conf.py.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(ROOT / "tools"))
from build_lite import SITE_FOLDER, lite_url  # noqa: E402  (the browser edition's layout)

LESSON_GLOB = "[0-9][0-9]_*.ipynb"


@dataclass(frozen=True)
class Edition:
    code: str  # the folder under notebooks/ and under the site; "" for English
    language: str  # Sphinx's name for the language
    label: str  # what the language switch says, in this edition's language
    title: str  # the site's title
    lessons_caption: str
    run_label: str  # the link from a lesson page to the same lesson in the browser edition

    @property
    def folder(self) -> str:
        """Where this edition's sources and Sphinx output go while building."""
        return self.code or "en"

    @property
    def up(self) -> str:
        """From this edition's pages to the site's root."""
        return "../" if self.code else ""

    def lessons(self, notebooks: Path) -> list[Path]:
        return sorted((notebooks / self.code).glob(LESSON_GLOB))

    def pages(self, notebooks: Path) -> dict[Path, str]:
        """Each lesson -> the name of its page's source: the name of the English lesson
        with the same number (`01_`), never paired by file name; its own when there is none."""
        english = {p.name[:2]: p.name for p in EDITIONS[0].lessons(notebooks)}
        pages = {p: english.get(p.name[:2], p.name) for p in self.lessons(notebooks)}
        if len(set(pages.values())) < len(pages):
            raise SystemExit(f"two lessons in {notebooks / self.code} have the same number")
        return pages

    def home(self, notebooks: Path) -> Path:
        """The home page's source: the README in this edition's language, beside notebooks/."""
        return notebooks.parent / ("README.md" if not self.code else f"README.{self.code}.md")


EDITIONS = (
    Edition("", "en", "English", "looplab", "Lessons", "Run in the browser"),
    Edition("zh-CN", "zh_CN", "中文", "looplab 中文版", "课程", "在浏览器中运行"),
)
# When a translation has no README of its own yet, its home page lists its lessons.
GENERATED_HOME = {
    "zh-CN": "一个 Agent 就是一个模型、几个工具和一个 `while` 循环。每一课都在离线的脚本化假模型上"
    "运行，不需要 API key；页面上的输出都经过测试。",
}


def title_of(notebook: Path) -> str:
    """The lesson's first Markdown heading: its page title. A file that is not a lesson
    notebook stops the build with one line naming it."""
    try:
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        markdown = [cell for cell in cells if cell["cell_type"] == "markdown"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        reason = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
        raise SystemExit(f"{notebook}: not a notebook ({type(e).__name__}: {reason})") from None
    for cell in markdown:
        for line in "".join(cell["source"]).splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return notebook.stem


def relink(text: str, source: Path, pages: dict[Path, str],
           elsewhere: dict[Path, str] | None = None) -> str:
    """Point Markdown links at files that become pages to those pages' sources, and links
    to another edition's home page or lessons (`elsewhere`) at that edition's built page."""
    elsewhere = elsewhere or {}

    def target(match: re.Match[str]) -> str:
        label, link = match.group(1), match.group(2)
        if "://" in link or link.startswith(("#", "mailto:")):
            return match.group(0)
        path, _, fragment = link.partition("#")
        resolved = (source.parent / path).resolve()
        anchor = "#" + fragment if fragment else ""
        if resolved in pages:
            return f"[{label}]({pages[resolved]}{anchor})"
        if resolved in elsewhere:  # a page of the site that this edition's build cannot see
            return f'<a href="{elsewhere[resolved]}{anchor}">{label}</a>'
        return match.group(0)

    return re.sub(r"\[([^\]]*)\]\(([^)\s]+)\)", target, text)


def other_editions(edition: Edition, notebooks: Path) -> dict[Path, str]:
    """Where the other editions' home pages, folders and lessons are on the built site,
    seen from this edition's pages."""
    found = {}
    for other in EDITIONS:
        if other == edition or not other.lessons(notebooks):
            continue
        base = edition.up + site_folder(other)
        found[other.home(notebooks).resolve()] = f"{base}index.html"
        found[(notebooks / other.code).resolve()] = f"{base}index.html"
        if (notebooks / other.code / "README.md").exists():  # its lesson map
            found[(notebooks / other.code / "README.md").resolve()] = f"{base}lessons.html"
        for lesson, name in other.pages(notebooks).items():
            found[lesson.resolve()] = f"{base}{Path(name).stem}.html"
    return found


def home_page(edition: Edition, notebooks: Path, lessons: list[Path],
              pages: dict[Path, str]) -> str:
    home = edition.home(notebooks)
    if home.exists():
        text = relink(home.read_text(encoding="utf-8"), home, pages,
                      other_editions(edition, notebooks))
    else:
        items = "\n".join(f"- [{title_of(p)}]({pages[p.resolve()]})" for p in lessons)
        text = f"# {edition.title}\n\n{GENERATED_HOME.get(edition.code, '')}\n\n{items}\n"
    toc = "\n".join(Path(name).stem for path, name in pages.items() if path != home.resolve())
    return (f"{text.rstrip()}\n\n```{{toctree}}\n:hidden:\n:caption: {edition.lessons_caption}"
            f"\n\n{toc}\n```\n")


def write_if_changed(path: Path, text: str) -> None:
    """Keep the mtime of an unchanged page, so Sphinx can reuse its cached reading."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def stage(edition: Edition, notebooks: Path, src: Path) -> list[str]:
    """Lay out one edition's sources for Sphinx in `src`; return its page names."""
    src.mkdir(parents=True, exist_ok=True)
    named = edition.pages(notebooks)
    lessons = list(named)
    lesson_map = notebooks / edition.code / "README.md"
    pages: dict[Path, str] = {}
    if lesson_map.exists():
        pages[lesson_map.resolve()] = "lessons.md"
    pages.update({p.resolve(): name for p, name in named.items()})
    home = edition.home(notebooks)
    pages[home.resolve()] = "index.md"
    files = {"index.md": home_page(edition, notebooks, lessons, pages)}
    if lesson_map.exists():
        files["lessons.md"] = relink(lesson_map.read_text(encoding="utf-8"), lesson_map, pages,
                                     other_editions(edition, notebooks))
    for name, text in files.items():
        write_if_changed(src / name, text)
    for lesson, name in named.items():
        copy = src / name
        if not copy.exists() or copy.read_bytes() != lesson.read_bytes():
            shutil.copyfile(lesson, copy)  # a new mtime: Sphinx reads it again
    keep = set(files) | set(named.values()) | {"_edition.json"}
    for stale in src.iterdir():
        if stale.name not in keep:
            stale.unlink()
    return [Path(name).stem for name in sorted(keep - {"_edition.json"})]


def site_folder(edition: Edition) -> str:
    return f"{edition.code}/" if edition.code else ""


def switch(edition: Edition, pages: dict[Edition, list[str]]) -> list[dict[str, object]]:
    """The language switch of one edition: a link per other edition, page to twin page."""
    links = []
    for other, names in pages.items():
        if other == edition:
            continue
        base = edition.up + site_folder(other)
        twins = {name: f"{base}{name}.html" for name in names if name in pages[edition]}
        links.append({"label": other.label, "lang": other.code or "en",
                      "twins": twins, "home": f"{base}index.html"})
    return links


def run_links(edition: Edition, notebooks: Path) -> dict[str, str]:
    """Each lesson page -> the browser edition opening the same lesson, in this edition's
    language (the Chinese notebook, under its Chinese name), relative to the page."""
    return {Path(name).stem: f"{edition.up}{SITE_FOLDER}/{lite_url(notebooks, lesson)}"
            for lesson, name in edition.pages(notebooks).items()}


def replaceable(out: Path) -> bool:
    """Whether the site may be built into `out`: it is empty, holds an earlier site, or
    holds only the browser edition (`make lite` before `make docs`)."""
    if not out.exists():
        return True
    return (out / ".buildinfo").exists() or {p.name for p in out.iterdir()} <= {SITE_FOLDER}


def editions_in(notebooks: Path) -> list[Edition]:
    """The editions that have lessons, English first; English must have some."""
    found = [e for e in EDITIONS if e.lessons(notebooks)]
    if not found or found[0].code:
        raise SystemExit(f"no lessons ({LESSON_GLOB}) in {notebooks}: nothing to build")
    return found


def build(notebooks: Path, out: Path, work: Path) -> list[Edition]:
    """Build every edition that has lessons into `out`; return them, English first."""
    editions = editions_in(notebooks)
    if not replaceable(out):
        raise SystemExit(f"{out} is not empty and holds no earlier site: choose another --out")
    pages = {e: stage(e, notebooks, work / "src" / e.folder) for e in editions}
    builds = []
    for e in editions:
        src = work / "src" / e.folder
        edition = {"title": e.title, "label": e.label, "switch": switch(e, pages),
                   "run": run_links(e, notebooks), "run_label": e.run_label}
        write_if_changed(src / "_edition.json", json.dumps(edition, ensure_ascii=False))
        # Sphinx keeps what it read in `work`, so a rebuild reads only the changed pages; the
        # pages are all written again (a lesson that is gone leaves no page behind)
        shutil.rmtree(work / "html" / e.folder / "site", ignore_errors=True)
        command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "--keep-going",
                   "-c", str(DOCS), "-D", f"language={e.language}",
                   "-d", str(work / "doctrees" / e.folder), str(src),
                   str(work / "html" / e.folder / "site")]
        # the editions are independent: build them side by side
        builds.append((e, subprocess.Popen(command)))
    failed = [e.label for e, process in builds if process.wait() != 0]
    if failed:
        raise SystemExit(f"the docs build failed for: {', '.join(failed)} (see the warnings above)")
    clear(out)
    for e in editions:
        shutil.copytree(work / "html" / e.folder / "site", out / e.code,
                        ignore=shutil.ignore_patterns("_sources"), dirs_exist_ok=True)
    return editions


def clear(out: Path) -> None:
    """Remove the earlier site from `out`, all but the browser edition (`make lite`
    replaces that one)."""
    for old in out.iterdir() if out.exists() else ():
        if old.is_dir() and old.name != SITE_FOLDER:
            shutil.rmtree(old)
        elif not old.is_dir():
            old.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "site")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "docs",
                        help="staged sources and Sphinx's cache")
    args = parser.parse_args()
    editions = build(args.notebooks.resolve(), args.out.resolve(), args.work.resolve())
    for e in editions:
        index = args.out / e.code / "index.html"
        print(f"{e.label}: {len(e.lessons(args.notebooks))} lessons -> {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
