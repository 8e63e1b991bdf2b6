"""The built docs site runs no script a lesson carries: a lesson with a `<script>`, an
`<img onerror>` and a `javascript:` link in its Markdown and its stored HTML output is
built with Sphinx, and its page holds none of them live. Sphinx takes seconds: slow."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path
from typing import Any

import pytest
from test_docs_sanitize import HOSTILE_HTML, HOSTILE_MD, REPO

pytestmark = pytest.mark.slow


def test_the_built_site_runs_no_script_a_lesson_carries(tmp_path: Path) -> None:
    tool: dict[str, Any] = runpy.run_path(str(REPO / "tools" / "build_docs.py"))
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (tmp_path / "README.md").write_text("# looplab\n\n[one](notebooks/01_hostile.ipynb)\n")
    output = {"output_type": "display_data", "metadata": {},
              "data": {"text/html": HOSTILE_HTML, "text/plain": "kept"}}
    cells = [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": HOSTILE_MD},
             {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": 1,
              "source": "show()", "outputs": [output]}]
    python = {"kernelspec": {"name": "python3", "display_name": "Python 3",
                             "language": "python"}, "language_info": {"name": "python"}}
    nb = {"cells": cells, "metadata": python, "nbformat": 4, "nbformat_minor": 5}
    (notebooks / "01_hostile.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    tool["build"](notebooks, tmp_path / "site", tmp_path / "work")
    page = (tmp_path / "site" / "01_hostile.html").read_text(encoding="utf-8")
    assert "kept" in page and 'data-gate="turns"' in page and 'data-turn="2"' in page
    # a script's words may show as text (Markdown's inline tags are cleaned one by one),
    # never as a script, a handler or a javascript: link
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", page, flags=re.S)
    assert not [s for s in scripts if "alert" in s]
    assert not re.search(r"\son[a-z]+\s*=", page) and "javascript:" not in page
    assert "out-script" not in page and "out-img" not in page and "md-img" not in page
