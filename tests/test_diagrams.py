"""The lessons' mermaid diagrams and their SVGs for the docs site (docs/_ext/diagrams.py).

A diagram changed in a lesson without running tools/render_diagrams.py would stop the
docs build; these say so here first, naming the lesson, and keep docs/diagrams/ free of
SVGs that no lesson uses.
"""

from __future__ import annotations

import base64
import json
import runpy
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

REPO = Path(__file__).resolve().parent.parent
tool: dict[str, Any] = runpy.run_path(str(REPO / "tools" / "render_diagrams.py"))
NOTEBOOKS = REPO / "notebooks"
DIAGRAMS: Path = tool["DIAGRAMS"]


def test_every_diagram_in_a_lesson_has_its_svg() -> None:
    diagrams = tool["lesson_diagrams"](NOTEBOOKS)
    assert diagrams, "the lessons have diagrams (lessons 01 and 04, both editions)"
    missing = [source.splitlines()[1] for key, source in diagrams.items()
               if not (DIAGRAMS / f"{key}.svg").exists()]
    assert not missing, ("run `python tools/render_diagrams.py` and commit docs/diagrams/; "
                         f"no SVG for the diagrams starting {missing}")


def test_no_svg_is_left_that_no_lesson_uses() -> None:
    used = set(tool["lesson_diagrams"](NOTEBOOKS))
    unused = sorted(p.name for p in DIAGRAMS.glob("*.svg") if p.stem not in used)
    assert not unused, f"remove these (tools/render_diagrams.py does): {unused}"


def test_a_changed_diagram_gets_a_new_key(tmp_path: Path) -> None:
    fence = "```mermaid\nflowchart TD\n    a --> {}\n```\n"
    cells = [{"cell_type": "markdown", "metadata": {}, "source": fence.format(x)}
             for x in ("b", "c", "b")]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "01_a.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    (tmp_path / "zh-CN").mkdir()
    (tmp_path / "zh-CN" / "01_a.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    found = tool["lesson_diagrams"](tmp_path)
    assert sorted(found.values()) == ["flowchart TD\n    a --> b", "flowchart TD\n    a --> c"]


def test_a_diagram_on_the_site_adds_no_text_to_the_page() -> None:
    """The search shows a hit in the page's text around it: a diagram's labels, run
    together, must not be that text. The diagram is an image; its source is its alt text."""
    from html.parser import HTMLParser

    from docutils import nodes
    from docutils.utils import new_document

    ext: dict[str, Any] = runpy.run_path(str(REPO / "docs" / "_ext" / "diagrams.py"))
    source = next(iter(tool["lesson_diagrams"](NOTEBOOKS).values()))
    doctree = new_document("lesson")
    doctree += nodes.paragraph(text="The loop, drawn:")
    doctree += nodes.literal_block(source, source, language="mermaid")

    class App:
        class env:  # noqa: N801 - stands in for Sphinx's app.env
            note_dependency = staticmethod(lambda path: None)

    ext["replace_diagrams"](App(), doctree)
    (raw,) = list(doctree.findall(nodes.raw))

    class Page(HTMLParser):
        texts: list[str] = []
        images: list[dict[str, str | None]] = []

        def handle_data(self, data: str) -> None:
            self.texts += [data.strip()] if data.strip() else []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.images += [dict(attrs)] if tag == "img" else []

    page = Page()
    page.feed(raw.astext())
    assert page.texts == []
    (img,) = page.images
    assert (img["src"] or "").startswith("data:image/svg+xml;base64,")
    assert img["alt"] == source.strip()
    # an image is drawn only from well-formed XML (mermaid's labels break lines with <br>)
    svg = base64.b64decode((img["src"] or "").split(",", 1)[1]).decode("utf-8")
    assert ElementTree.fromstring(svg).tag.endswith("svg")
