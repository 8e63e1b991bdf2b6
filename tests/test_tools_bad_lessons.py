"""tools/run_notebooks.py and tools/build_docs.py stop at a lesson that is not UTF-8, not
JSON or not a notebook with one line naming it, never a traceback. (tools/make_exercises.py:
tests/test_make_exercises.py.)"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[1] / "tools"


@pytest.mark.parametrize(("tool", "function"), [("run_notebooks.py", "run"),
                                                ("build_docs.py", "title_of")])
@pytest.mark.parametrize("content", [b"\xff\xfe{not utf-8", b"not json", b"[1, 2]", b"{}"])
def test_a_lesson_that_is_not_a_notebook_is_named_in_one_line(
    tmp_path: Path, tool: str, function: str, content: bytes
) -> None:
    path = tmp_path / "07_x.ipynb"
    path.write_bytes(content)
    with pytest.raises(SystemExit) as stopped:
        runpy.run_path(str(TOOLS / tool))[function](path)
    message = str(stopped.value.code)
    assert message.startswith(f"{path}: not a notebook (") and "\n" not in message
