"""The font a plot's Chinese text is drawn in: Noto Sans CJK SC, which the package brings
from PyPI (`manimgx-fonts-cjk`, SIL Open Font License), registered with matplotlib.

matplotlib's own fonts have no Chinese glyphs: a Chinese label would be drawn as boxes.
`use_learner_font(fig)` gives every text of a figure a family list that falls back, glyph
by glyph, from matplotlib's default font to the CJK one when the learner reads Chinese.
The font is registered only then (it is 33 MB), once per process. Without the font package
(it has no browser wheel), Chinese text is drawn in the default font, with a warning.

matplotlib draws only the variable font's default instance, its thinnest weight: beside
black Latin text the Chinese looked grey and thin. A text with Chinese in it is drawn with
an outline in its own colour, 0.05 em wide, which brings its strokes to the regular weight
(the ink of a line of Chinese then matches a line of Latin text, tests/views/test_plots.py).
fontTools could make a regular instance of the font, but it takes minutes for 33 MB.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import warnings
from importlib.resources import files

from matplotlib import font_manager, patheffects, rcParams
from matplotlib.figure import Figure
from matplotlib.text import Text

from ..i18n import _, current

CJK_FAMILY = "Noto Sans CJK SC"
_FONT_PACKAGE, _FONT_FILE = "manimgx_fonts_cjk", "NotoSansCJK-VF.otf.ttc"
# CJK punctuation, kana, ideographs, hangul, full-width forms: drawn from the CJK font
_CJK = re.compile("[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]")
_REGULAR_OUTLINE_EM = 0.05  # the outline that brings the thinnest weight to the regular one


@functools.cache
def cjk_font() -> str | None:
    """Register the CJK font with matplotlib (every face of the collection; the Simplified
    Chinese one is `CJK_FAMILY`) and return the file's path; None (and a warning, once)
    when the font package is not installed."""
    try:
        path = str(files(_FONT_PACKAGE) / _FONT_FILE)
    except ModuleNotFoundError:
        warnings.warn(_("The Chinese font of the plots is not installed (pip install "
                        "{package}): Chinese text may be drawn as boxes.").format(
                            package="manimgx-fonts-cjk"), stacklevel=4)
        return None
    manager = font_manager.fontManager
    manager.addfont(path)
    # The file is a variable font whose default instance is its lightest weight, and
    # matplotlib draws only that instance. Registered as the regular weight, it is found
    # for ordinary text without a "failed to find font weight" warning in the output.
    manager.ttflist = [dataclasses.replace(e, weight=400) if e.fname == path else e
                       for e in manager.ttflist]
    font_manager.fontManager._findfont_cached.cache_clear()  # type: ignore[attr-defined]
    return path


def families() -> list[str]:
    """The font families a plot's text uses in the current language, in fallback order."""
    base = [f for f in rcParams["font.sans-serif"] if f != CJK_FAMILY][:1] or ["DejaVu Sans"]
    if current() == "en" or cjk_font() is None:
        return base
    return [*base, CJK_FAMILY]


def use_learner_font(fig: Figure) -> Figure:
    """`fig` with every text in a font that has the glyphs of the learner's language."""
    chosen = families()
    if len(chosen) > 1:
        for text in fig.findobj(Text):
            text.set_fontfamily(chosen)
            if _CJK.search(text.get_text()):
                size = float(text.get_fontproperties().get_size_in_points())
                outline = patheffects.Stroke(linewidth=_REGULAR_OUTLINE_EM * size,
                                             foreground=text.get_color())
                text.set_path_effects([outline, patheffects.Normal()])
    return fig
