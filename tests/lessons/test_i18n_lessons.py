"""The lessons' own words in Chinese: scorecards, hints, the demo's task, tools and agent."""

from __future__ import annotations

import pytest

import looplab
from looplab import run_agent
from looplab.exercises import check_agent_loop, check_next_action
from looplab.exercises.museum import check_museum_loop
from looplab.fake import fake_client
from looplab.lessons import demo
from looplab.lessons.demo import demo_agent, demo_tools

ZH_TASK = "跑一下 login 模块的测试，有失败就查清楚原因。"


@pytest.fixture(autouse=True)
def _back_to_default() -> object:
    yield
    looplab.set_language(None)


def always_done(stop_reason: str) -> str:
    return "done"


def test_a_scorecard_reads_in_chinese_and_its_names_still_compare_in_english() -> None:
    looplab.set_language("zh-CN")
    card = check_next_action(always_done)
    lines = str(card).splitlines()
    assert lines[0] == "check_next_action(always_done)：1 / 9 项检查通过"
    assert "✗ refusal — 得到 'done'，但这表示模型拒绝回答" in lines
    assert [c.name for c in card if c.passed] == ["end_turn"]
    assert "全部" not in card._repr_html_() and "项检查通过" in card._repr_html_()
    looplab.set_language("en")  # shown again: names and summary in English, hints as made
    assert str(card).splitlines()[:2] == ["check_next_action(always_done): 1 of 9 checks passed",
                                          "✓ end_turn"]
    assert "✗ refusal — got 'done', but the model declined to answer" in str(
        check_next_action(always_done)).splitlines()


def test_an_unwritten_stub_and_a_museum_exhibit_read_in_chinese() -> None:
    def stub(*args: object, **kwargs: object) -> object:
        raise NotImplementedError("write the loop")

    looplab.set_language("zh-CN")
    assert str(check_agent_loop(stub)).splitlines() == [
        "check_agent_loop(stub)：0 / 8 项检查通过", "✗ 还没写：write the loop"]
    card = check_museum_loop(stub)
    assert str(card[0].name) == "正常的运行照样能完成" and not card[0].passed
    assert card[1].name == "exhibit 1: a session saved mid-call can go on"  # still English


def test_the_demo_task_is_read_in_the_current_language() -> None:
    from looplab.lessons.demo import TASK

    assert TASK == "Run the tests of the login module; if any fail, find out why."
    looplab.set_language("zh-CN")
    from looplab.lessons.demo import TASK as CHINESE_TASK

    assert CHINESE_TASK == demo.TASK == ZH_TASK
    with pytest.raises(AttributeError, match="TASKS"):
        demo.TASKS  # noqa: B018


def test_the_demo_tools_are_described_in_chinese_when_built_in_chinese() -> None:
    english = [t.definition() for t in demo_tools()]
    looplab.set_language("zh-CN")
    run_tests, read_file = demo_tools()
    assert run_tests.description == ("运行某个模块的单元测试，返回 pytest 输出。\n\n"
                                     "需要确认测试是否通过时调用。")
    assert read_file.description.startswith("读取仓库里的一个文本文件并返回内容。\n\n"
                                            "需要看源码或日志时调用。")
    assert "模块名" in run_tests.input_schema["properties"]["module"]["description"]
    assert english[0]["input_schema"]["properties"]["module"]["description"].startswith(
        "the module's name")  # the English tools built before are untouched
    assert "MAX_ATTEMPTS" in read_file(path="login.py")  # and they work the same


def test_the_demo_agent_answers_in_chinese() -> None:
    looplab.set_language("zh-CN")
    result = run_agent(fake_client(demo_agent()), demo.TASK, tools=demo_tools())
    texts = [b["text"] if isinstance(b, dict) else b.text for m in result.messages
             if isinstance(m["content"], list) for b in m["content"]
             if (b["type"] if isinstance(b, dict) else b.type) == "text"]
    assert result.messages[0]["content"] == ZH_TASK
    assert texts[0] == "我先跑一下 login 模块的测试。"
    assert texts[1] == "有测试失败。我同时读一下日志和源码。"
    assert "锁定检查在 login.py 第" in texts[2] and "应该用 `>=`。" in texts[2]
    assert str(result) == "完成"


def test_the_demo_agent_still_answers_in_english() -> None:
    result = run_agent(fake_client(demo_agent()), demo.TASK, tools=demo_tools())
    first = result.messages[1]["content"][0]
    assert (first["text"] if isinstance(first, dict) else first.text) == (
        "Let me run the login tests first.")
