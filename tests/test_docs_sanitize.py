"""The docs site shows a lesson's raw HTML (in its Markdown and its stored outputs) the way
JupyterLab does, sanitized: a `<script>` or an `<img onerror>` in a lesson never goes live
on the site, while the tags, classes, styles and data attributes the outputs use stay."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "docs" / "_ext"))
from sanitize import clean  # noqa: E402

HOSTILE_MD = ("# 01 · Hostile\n\nText <script>alert('md-script')</script> and "
              "<img src=x onerror=\"alert('md-img')\"> and "
              "<a href=\"javascript:alert('md-a')\">link</a>.\n\n"
              "<div class=\"note\" data-gate=\"turns\" style=\"color: red\">kept</div>\n")
HOSTILE_HTML = ("<b onclick=\"alert('out-click')\">bold</b>"
                "<img src=x onerror=\"alert('out-img')\">"
                "<script>alert('out-script')</script>"
                "<span class=\"ok\" data-turn=\"2\">kept</span>")


def test_clean_drops_scripts_handlers_and_javascript_urls_and_keeps_what_outputs_use() -> None:
    out = clean(HOSTILE_HTML + '<a href="javascript:alert(1)">x</a>'
                '<div style="color: red" class="c" data-gate="turns"><details><summary>s'
                "</summary>t</details></div>")
    assert "alert" not in out and "onclick" not in out and "onerror" not in out
    assert '<span class="ok" data-turn="2">kept</span>' in out
    assert 'style="color: red"' in out and 'data-gate="turns"' in out and "<details>" in out
