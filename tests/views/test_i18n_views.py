"""The views' own words in Chinese: quiz, widget labels, run HTML; API words stay English."""

from __future__ import annotations

import pytest

import looplab
from looplab import Limits, ScriptedModel, call, fake_client, run_agent, say, tool
from looplab.views.html import render_run_html
from looplab.views.quiz import STATEMENTS, Quiz, verdict
from looplab.views.widgets import LiveRun, TurnViewer


@pytest.fixture(autouse=True)
def _back_to_default() -> object:
    yield
    looplab.set_language(None)


@tool
def noop() -> str:
    """Do nothing."""
    return "ok"


def test_a_quiz_verdict_reads_in_chinese_with_its_api_words_kept() -> None:
    looplab.set_language("zh-CN")
    quiz = Quiz()
    quiz.answer(0, True)  # "The model executes the tool." is false
    shown = quiz.verdicts[0].value
    assert "✗ 不对：这句话是错的。" in shown and "<code>tool_use</code>" in shown
    assert "第 01 课：一次请求、一次响应" in shown
    assert quiz.buttons[0].options == (("对", True), ("错", False))
    assert "得分：答对 0 题" in quiz.score.value and "判断对错" in quiz._repr_html_()
    assert STATEMENTS[0].text == "The model executes the tool."  # compares in English


def test_the_quiz_verdict_is_unchanged_in_english() -> None:
    shown = verdict(STATEMENTS[0], False)
    assert shown.startswith('<span style="color:#1a7f37"><b>✓ Right: it is false.</b></span> ')
    assert shown.endswith("<i>(lesson 01: one request, one response)</i>")


def test_widget_labels_and_the_run_html_read_in_chinese() -> None:
    looplab.set_language("zh-CN")
    model = ScriptedModel([call("noop"), call("noop"), say("done")])
    result = run_agent(fake_client(model), "t", tools=[noop], limits=Limits(max_turns=2))
    viewer = TurnViewer(result)
    assert (viewer.prev_button.description, viewer.next_button.description) == (
        "◀ 上一轮", "下一轮 ▶")
    assert viewer.slider.description == "轮"
    page = render_run_html(result)
    assert "已停止：max_turns" in page and "2 轮" in page and "第 1 轮" in page
    assert 'data-gate="turns"' in page and "轮数 2 / 2 · 已触发" in page
    assert "<b>tool_use</b>" in page and "<b>tool_result</b> 配对" in page  # API words kept
    live = LiveRun(fake_client(ScriptedModel([say("hi")])), "t")
    assert [b.description for b in (live.step_button, live.run_button, live.reset_button)] == [
        "单步", "跑到结束", "重置"]
    live.step()
    assert live.out.outputs[0]["text"].startswith("第 1 轮：stop_reason end_turn，")


def test_widget_labels_stay_english_in_english() -> None:
    viewer = TurnViewer()
    assert (viewer.prev_button.description, viewer.slider.description) == ("◀ prev", "turn")
    assert "no turns yet" in viewer.html.value and "not started" in viewer.header.value
