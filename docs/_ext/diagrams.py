"""Mermaid diagrams as SVG images in the page: no script, nothing fetched.

JupyterLab draws a lesson's ```mermaid block itself. Sphinx has no renderer for it, and the
usual extension (sphinxcontrib-mermaid) loads mermaid's script from a CDN when the page is
viewed, which fails offline. So each diagram is drawn once, by mermaid in Chromium
(`python tools/render_diagrams.py`), into docs/diagrams/<key>.svg, where the key is a hash of
the diagram's source; here each block is replaced by its SVG. A diagram whose source changed
has no SVG under its new key: the build stops and says which command draws it.

Each SVG is an image (`<img>` with the SVG as a data URL), not SVG elements in the page: the
page's text is then its prose alone. The search indexes the page's text and shows a hit in
the text around it, and a diagram's labels, run together, are no sentence to show.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

DIAGRAMS = Path(__file__).resolve().parents[1] / "diagrams"
LANGUAGE = "mermaid"
VOID = re.compile(r"<(br|hr|img|wbr)\b([^>]*?)(?<!/)>")  # HTML's empty elements, unclosed
logger = logging.getLogger(__name__)


def diagram_key(source: str) -> str:
    """The name of a diagram's SVG: the same source, the same file."""
    return hashlib.sha256(source.strip().encode("utf-8")).hexdigest()[:16]


def svg_path(source: str) -> Path:
    return DIAGRAMS / f"{diagram_key(source)}.svg"


def replace_diagrams(app: Sphinx, doctree: nodes.document) -> None:
    for block in list(doctree.findall(nodes.literal_block)):
        if block.get("language") != LANGUAGE:
            continue
        path = svg_path(block.astext())
        if not path.exists():
            logger.warning("this diagram has no SVG yet: run `python tools/render_diagrams.py`"
                           " (needs npm and Chromium) and commit docs/diagrams/",
                           location=block)
            continue
        app.env.note_dependency(str(path))
        diagram = image(path, block.astext())
        block.replace_self(nodes.raw("", f'<div class="looplab-diagram">{diagram}</div>\n',
                                     format="html", trusted=True))  # the site's own SVG


def image(path: Path, source: str) -> str:
    """An SVG file as an `<img>`, as wide as the SVG's drawing (its viewBox) at most; its
    alternative text is the diagram's mermaid source, as a screen reader in JupyterLab
    reads it."""
    # mermaid writes its HTML labels' line breaks as `<br>`: fine in a page, but an image
    # must be well-formed XML, or the browser shows no image at all
    svg = VOID.sub(r"<\1\2/>", path.read_text(encoding="utf-8"))
    box = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"', svg)
    size = f' width="{round(float(box[1]))}" height="{round(float(box[2]))}"' if box else ""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f'<img src="data:image/svg+xml;base64,{data}"{size} alt="{html.escape(source.strip())}">'


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", replace_diagrams)
    # env_version: a build's cached pages hold the diagrams as this file wrote them; a new
    # version number makes Sphinx read every page again
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
