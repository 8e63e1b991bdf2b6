"""Math as MathML, written into the page when it is built: no script, nothing fetched.

Sphinx's default renderer (MathJax) loads its script from a CDN when the page is viewed,
which fails offline. latex2mathml (pure Python, maintained) turns the lessons' LaTeX into
MathML, which browsers draw natively (MathML Core: Chromium, Firefox, Safari).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from latex2mathml.converter import convert
from sphinx.application import Sphinx
from sphinx.writers.html5 import HTML5Translator


def visit_inline(self: HTML5Translator, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math"))
    self.body.append(convert(node.astext()) + "</span>")
    raise nodes.SkipNode


def visit_block(self: HTML5Translator, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math"))
    # a blank line separates equations in one block, as in Sphinx's own renderers
    for part in node.astext().split("\n\n"):
        if part.strip():
            self.body.append(convert(part, display="block"))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_html_math_renderer("mathml", (visit_inline, None), (visit_block, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
