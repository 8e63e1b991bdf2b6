"""Sphinx settings for the docs site. Run through `make docs` (tools/build_docs.py), which
stages each edition's pages and builds it with these settings.

Why Sphinx + MyST-NB + Furo:
- MyST-NB (the Executable Books project, the engine of Jupyter Book 1) renders a
  notebook's *stored* outputs without running it (`nb_execution_mode = "off"`), and picks
  one of each output's mime types by a priority we set. looplab's widgets store a text/html
  view next to the widget view; with the widget view dropped from the priority, the page
  shows that HTML and needs no kernel, no saved widget state and no widget script from a CDN.
- Sphinx's search is a static index read by the page's own script: it works offline, and
  for Chinese it segments words with jieba.
- Furo ships all its assets (no web fonts, no CDN) and stays readable on narrow screens.
- The lessons' raw HTML (Markdown's and the outputs') is sanitized as JupyterLab does
  (docs/_ext/sanitize.py, with nh3): a script in a lesson never runs on the site.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "_ext"))

project = "looplab"
author = "looplab contributors"
extensions = ["myst_nb", "mathml", "diagrams", "sanitize", "sphinx.ext.githubpages"]
root_doc = "index"

# the lessons' outputs as stored and checked by nbval; nothing is executed
nb_execution_mode = "off"
nb_mime_priority_overrides = [("*", "application/vnd.jupyter.widget-view+json", None)]
nb_ipywidgets_js: dict[str, dict[str, str]] = {}  # never load widget scripts from a CDN
nb_merge_streams = True
myst_enable_extensions = ["dollarmath"]
myst_update_mathjax = False  # no MathJax here; also keeps the config stable between builds
myst_heading_anchors = 3
smartquotes = False  # show the lessons' text as written, as Jupyter does
html_math_renderer = "mathml"  # docs/_ext/mathml.py: MathML in the page, no MathJax

html_theme = "furo"
html_static_path = [str(HERE / "_static")]
templates_path = [str(HERE / "_templates")]
html_favicon = str(HERE / "_static" / "favicon.svg")
html_copy_source = False
html_show_sourcelink = False
html_show_copyright = False


def _edition(app: Any, config: Any) -> None:
    """This edition's title, language switch and links to the browser edition, written
    next to its pages by the build."""
    edition = json.loads((Path(app.srcdir) / "_edition.json").read_text(encoding="utf-8"))
    config.html_title = edition["title"]
    config.html_context = {**config.html_context, "looplab_label": edition["label"],
                           "looplab_switch": edition["switch"], "looplab_run": edition["run"],
                           "looplab_run_label": edition["run_label"]}
    if edition["switch"] or edition["run"]:  # Furo shows its bar only when it has some text
        config.html_theme_options = {**config.html_theme_options, "announcement": "languages"}
    if config.language.startswith("zh"):
        app.add_js_file("looplab-zh-search.js")  # the search summary line in Chinese
        import jieba  # Sphinx's Chinese search splits words with it; keep its log quiet

        jieba.setLogLevel(logging.WARNING)


def setup(app: Any) -> None:
    app.connect("config-inited", _edition)
    # added here rather than in html_css_files, which Sphinx rewrites when it reads it: a
    # config that looks changed makes every build read every page again
    app.add_css_file("looplab-site.css")
