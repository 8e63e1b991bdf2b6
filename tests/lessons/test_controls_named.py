"""Prose that names a control names it as that edition's widget shows it.

A reader told to click **Step** looks for a button that says Step; in the Chinese edition
the button says 单步. The labels come from the widgets themselves, built in each language;
a control is named in prose as an emphasized phrase (`*…*` or `**…**`). Each markdown cell
must name the same controls in both editions, each in its own edition's words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from editions import LESSONS, chinese

import looplab
from looplab import ScriptedModel, fake_client, say
from looplab.i18n import _
from looplab.views.explorer import TokenExplorer
from looplab.views.widgets import LiveRun

EMPHASIZED = re.compile(r"(?<!\*)\*{1,2}([^*\n]+?)\*{1,2}(?!\*)")


@pytest.fixture(scope="module")
def labels() -> Iterator[dict[str, dict[str, str]]]:
    """language -> control -> the words on screen."""
    found = {}
    for language in ("en", "zh-CN"):
        looplab.set_language(language)
        live = LiveRun(fake_client(ScriptedModel([say("ok")])), "t")
        explorer = TokenExplorer()
        found[language] = {
            "step": live.step_button.description, "run": live.run_button.description,
            "reset": live.reset_button.description, "caching": explorer.caching.description,
            "compaction": explorer.compaction.description,
            "tripped": _(" · tripped").strip(" ·"),
        }
    looplab.set_language(None)
    yield found


def named(text: str, words: dict[str, str]) -> set[str]:
    """The controls `text` names with these words."""
    phrases = {m.group(1).strip() for m in EMPHASIZED.finditer(text)}
    return {control for control, label in words.items() if label in phrases}


def test_the_widgets_differ_in_each_language(labels: dict[str, dict[str, str]]) -> None:
    assert labels["en"]["step"] == "Step" and labels["zh-CN"]["step"] == "单步"
    assert labels["zh-CN"]["compaction"] == "每 5 轮压缩历史"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_prose_names_each_control_in_its_editions_words(
    lesson: Path, labels: dict[str, dict[str, str]]
) -> None:
    english = nbformat.read(lesson, 4).cells
    translated = {c.get("id"): c for c in nbformat.read(chinese(lesson), 4).cells}
    problems = []
    for cell in english:
        twin = translated.get(cell.get("id"))
        if cell.cell_type != "markdown" or twin is None:
            continue
        for text, own, other in ((cell.source, "en", "zh-CN"), (twin.source, "zh-CN", "en")):
            foreign = sorted(c for c in named(text, labels[other])
                             if labels[other][c] != labels[own][c])
            if foreign:
                problems.append(f"{own} cell {cell.get('id')} names "
                                f"{[labels[other][c] for c in foreign]}, which the {own} "
                                f"widgets show as {[labels[own][c] for c in foreign]}")
        if named(cell.source, labels["en"]) != named(twin.source, labels["zh-CN"]):
            problems.append(f"cell {cell.get('id')}: the editions name different controls")
    assert not problems, f"{lesson.name}:\n  " + "\n  ".join(problems)
