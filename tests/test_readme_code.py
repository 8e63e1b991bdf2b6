"""The first code example of each README runs as shown and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRINTED = re.compile(r"^print\(.*\)\s+# (.*)$")


@pytest.mark.parametrize("readme", ["README.md", "README.zh-CN.md"])
def test_the_first_code_example_prints_what_it_says(readme: str) -> None:
    text = (ROOT / readme).read_text(encoding="utf-8")
    example = re.search(r"```python\n(.*?)\n```", text, re.S)
    assert example is not None, readme
    code = example.group(1)
    said = [m.group(1) for line in code.splitlines() if (m := PRINTED.match(line))]
    assert said, f"{readme}: the first example prints nothing a reader can compare"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, readme, "exec"), {})
    assert out.getvalue().splitlines() == said
