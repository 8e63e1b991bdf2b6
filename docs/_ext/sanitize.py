"""Raw HTML from the lessons, sanitized the way JupyterLab sanitizes an untrusted notebook.

A lesson's Markdown may hold raw HTML, and its stored outputs `text/html`; JupyterLab shows
both through its sanitizer, so a `<script>` or an `<img onerror=...>` in them never runs.
The site must not be the place where they do. Every raw HTML node of a page (Markdown's
and the outputs') is cleaned with nh3 (the Python binding of ammonia, a sanitizer made for
this) just before the page is written; the site's own HTML (a diagram's SVG, marked
`trusted`) is left as it is. Kept: ammonia's safe tags, and the `class`, `style`, `id`,
`title` and `data-*` attributes the lessons' outputs use.
"""

from __future__ import annotations

from typing import Any

import nh3
from docutils import nodes
from sphinx.application import Sphinx

GENERIC = {"class", "style", "id", "title", "lang", "dir"}
ATTRIBUTES = {tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()}
ATTRIBUTES["*"] = ATTRIBUTES.get("*", set()) | GENERIC  # on every tag


def clean(html: str) -> str:
    """`html` without scripts, event handlers or dangerous URLs."""
    return nh3.clean(html, attributes=ATTRIBUTES, generic_attribute_prefixes={"data-"})


def sanitize(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for node in list(doctree.findall(nodes.raw)):
        if "html" not in node.get("format", "").split() or node.get("trusted"):
            continue
        node.replace_self(nodes.raw("", clean(node.astext()), format="html"))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-resolved", sanitize)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
