"""Where matplotlib cannot be loaded (the browser edition has none), a plot is a note that
says why the figure is missing, in the learner's language; the token explorer keeps its
sliders and table. Without the Chinese font package, Chinese plots fall back to the
default font, with a warning."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

import looplab
from looplab.views import fonts

NO_MATPLOTLIB = """
import json, sys
for name in [n for n in sys.modules if n == "matplotlib" or n.startswith("matplotlib.")]:
    del sys.modules[name]
sys.modules["matplotlib"] = None  # import matplotlib raises ModuleNotFoundError
import looplab
from looplab import tokens
from looplab.views.explorer import token_explorer
from looplab.views.plots import plot_cost_comparison

notes = {}
looplab.set_language("en")
figure = looplab.plot_cumulative_input([])
notes["type"] = type(figure).__name__
notes["en"] = repr(figure)
notes["html"] = figure._repr_html_()
notes["cost"] = repr(plot_cost_comparison(tokens.compare_costs(4, 400, 300)))
x = token_explorer()
notes["explorer"] = [x.image.layout.display, x.table.value]
sys.platform = "emscripten"  # as in Pyodide
notes["browser"] = repr(looplab.plot_cumulative_input([]))
looplab.set_language("zh-CN")
notes["zh-CN"] = repr(looplab.plot_cumulative_input([]))
print(json.dumps(notes))
"""


@pytest.fixture(scope="module")
def notes() -> dict[str, str]:
    done = subprocess.run([sys.executable, "-c", NO_MATPLOTLIB], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_a_plot_is_a_note_that_says_why_the_figure_is_missing(notes: dict[str, str]) -> None:
    assert notes["type"] == "MissingFigure"
    assert notes["en"].startswith("No figure here: matplotlib could not be loaded (")
    assert "pip install matplotlib" in notes["en"]
    assert "No figure here" in notes["html"] and notes["html"].startswith("<p ")
    assert notes["cost"] == notes["en"]


def test_in_the_browser_the_note_says_to_run_the_lesson_locally(notes: dict[str, str]) -> None:
    assert notes["browser"] == ("No figure here: matplotlib is not available in the browser "
                                "edition. Run this lesson in a local install of looplab to "
                                "see it.")
    assert "matplotlib" in notes["zh-CN"] and "浏览器版" in notes["zh-CN"]
    assert "No figure" not in notes["zh-CN"]


def test_the_token_explorer_shows_its_table_and_the_note(notes: dict[str, str]) -> None:
    display, table = notes["explorer"]
    assert display == "none"  # no empty image where the plot would be
    assert "No figure here" in table and "S=400, Δ=300" in table


@pytest.fixture
def no_font_package(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(fonts, "_FONT_PACKAGE", "looplab_no_such_font_package")
    fonts.cjk_font.cache_clear()
    yield
    fonts.cjk_font.cache_clear()
    looplab.set_language(None)


def test_without_the_font_package_chinese_plots_use_the_default_font(
    no_font_package: None,
) -> None:
    looplab.set_language("zh-CN")
    with pytest.warns(UserWarning, match="pip install manimgx-fonts-cjk"):
        assert fonts.families() == ["DejaVu Sans"]
    figure = looplab.plot_cumulative_input([])
    assert not isinstance(figure, looplab.plots.MissingFigure)
