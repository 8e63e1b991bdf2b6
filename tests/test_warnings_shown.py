"""The warning a learner sees in the browser edition (tool timeouts cannot be enforced
there) reads as a sentence, in their language, not as Python's raw warning line."""

from __future__ import annotations

import warnings

import pytest

import looplab
from looplab.i18n import current
from looplab.running import inline


@looplab.tool
def noop() -> str:
    """Do nothing."""
    return "ok"


@pytest.mark.parametrize(("language", "sentence"), [
    ("en", "looplab: no thread can be started here (Pyodide, in the browser): tool calls run "
           "in the loop, and their timeouts are not enforced\n"),
    ("zh-CN", "looplab: 这里"),
])  # fmt: skip
def test_the_browser_only_warning_is_one_sentence(
    language: str, sentence: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inline, "_told", False)  # as in a fresh kernel
    before = current()
    looplab.set_language(language)
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            inline.run_inline(noop, {}, 1.0)  # the first call with a timeout, no thread
            warnings.warn("something else", UserWarning, stacklevel=1)
    finally:
        looplab.set_language(before)
    # what Python prints for each: `warnings.formatwarning`, or what replaced it
    first, other = (warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line)
                    for w in said)  # fmt: skip
    assert first.startswith(sentence) and "TimeoutsNotEnforcedWarning" not in first
    assert ("enforced" in first) == (language == "en")
    # any other warning as Python prints it: the place, the category, the line below
    assert other.startswith(f"{__file__}:") and ": UserWarning: something else" in other
