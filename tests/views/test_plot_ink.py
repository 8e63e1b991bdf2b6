"""Chinese plot text is drawn as dark as Latin text beside it: the CJK font matplotlib draws
is its thinnest weight, which looked grey and thin (looplab.views.fonts). Measured in pixels:
the mean ink of a line of Chinese against a line of Latin text, same size, same colour."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import looplab
from looplab.views.fonts import use_learner_font


@pytest.fixture
def _chinese() -> Iterator[None]:
    looplab.set_language("zh-CN")
    yield
    looplab.set_language(None)


def ink(text: str, size: float) -> float:
    """The mean darkness (0-255) of the pixels a text inks, drawn black on white."""
    fig = Figure(figsize=(5, 1), dpi=100)
    canvas = FigureCanvasAgg(fig)
    fig.text(0.02, 0.3, text, fontsize=size, color="black")
    use_learner_font(fig)
    canvas.draw()
    grey = np.asarray(canvas.buffer_rgba())[..., :3].mean(axis=2)
    inked = grey[grey < 250]
    assert inked.size > 100, text
    return float((255 - inked).mean())


@pytest.mark.usefixtures("_chinese")
@pytest.mark.parametrize("size", [10, 14])
def test_chinese_text_is_as_dark_as_latin_text(size: float) -> None:
    chinese, latin = ink("每一轮请求的输入", size), ink("Input tokens per request", size)
    assert 0.85 <= chinese / latin <= 1.15, (chinese, latin)
