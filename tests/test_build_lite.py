"""tools/build_lite.py: the notebooks the browser edition serves, as JupyterLab will show them
before anything is run (without building the edition or opening a browser)."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
lite: dict[str, Any] = runpy.run_path(str(REPO / "tools" / "build_lite.py"))


def _joined(value: Any) -> Any:
    return "".join(value) if isinstance(value, list) else value


def _lists(nb: dict[str, Any]) -> list[str]:
    """Every text of a notebook kept as a list of lines, which JupyterLite hands JupyterLab
    as it is: JupyterLab shows an output's list joined by commas."""
    found = []
    for index, cell in enumerate(nb["cells"]):
        if isinstance(cell["source"], list):
            found.append(f"cell {index} source")
        for output in cell.get("outputs", []):
            if isinstance(output.get("text"), list):
                found.append(f"cell {index} {output['output_type']} text")
            for mime, value in output.get("data", {}).items():
                if isinstance(value, list):
                    found.append(f"cell {index} {mime}")
    return found


def test_every_stored_output_of_the_browser_edition_is_one_string(tmp_path: Path) -> None:
    written = lite["contents"](NOTEBOOKS, tmp_path)
    assert len(written) >= 64  # 16 lessons and their student copies, in both editions
    for path in written:
        built = json.loads(path.read_text(encoding="utf-8"))
        assert _lists(built) == [], path.relative_to(tmp_path)
        stored = json.loads((NOTEBOOKS / path.relative_to(tmp_path)).read_text(encoding="utf-8"))
        assert built["cells"][0]["id"] == "lite-install"
        for was, now in zip(stored["cells"], built["cells"][1:], strict=True):
            assert now["source"] == _joined(was["source"])
            assert len(now.get("outputs", [])) == len(was.get("outputs", []))
            for before, after in zip(was.get("outputs", []), now.get("outputs", []), strict=True):
                assert after.get("text") == _joined(before.get("text"))
                assert after.get("traceback") == before.get("traceback")  # a list by design
                assert after.get("data", {}) == {mime: _joined(value) for mime, value
                                                 in before.get("data", {}).items()}  # fmt: skip


def test_a_multi_line_output_reaches_the_browser_as_the_text_printed(tmp_path: Path) -> None:
    lite["contents"](NOTEBOOKS, tmp_path)
    for lesson in ("05_stop_gates.ipynb", "zh-CN/05_停止条件_四道闸门.ipynb"):
        nb = json.loads((tmp_path / lesson).read_text(encoding="utf-8"))
        printed = [o["text"] for c in nb["cells"] for o in c.get("outputs", [])
                   if o["output_type"] == "stream"]  # fmt: skip
        lines = [line for text in printed for line in text.split("\n")]
        assert any("\n" in text for text in printed), lesson
        assert not [line for line in lines if line.startswith(",")], lesson


def test_a_command_that_works_prints_nothing_unless_verbose(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """`make docs` and `make lite` are quiet: pip's, npm's and jupyter lite's output only
    with V=1 (--verbose)."""
    command = [sys.executable, "-c", "print('a line pip would print')"]
    assert lite["run"](command).returncode == 0
    assert capfd.readouterr() == ("", "")
    lite["run"].__globals__["VERBOSE"] = True
    try:
        lite["run"](command)
    finally:
        lite["run"].__globals__["VERBOSE"] = False
    out = capfd.readouterr().out
    assert out.startswith(f"+ {sys.executable} -c") and out.endswith("a line pip would print\n")


def test_a_command_that_fails_shows_itself_and_what_it_printed(
    capfd: pytest.CaptureFixture[str],
) -> None:
    command = [sys.executable, "-c", "import sys; print('no such package'); sys.exit(3)"]
    assert lite["run"](command).returncode == 3
    out, err = capfd.readouterr()
    assert out == "" and err == f"+ {' '.join(command)}\nno such package\n"


def test_make_passes_v_on_to_both_builds() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for target in ("docs", "lite"):
        recipe = makefile.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]
        assert "tools/build_lite.py $(if $(V),--verbose)" in recipe, target
