"""What the loop tells the model about a call it did not run, or that failed, goes out in the
language of the run, through the real SDK to the fake, as the model reads it; so do a
stopped run's open calls, closed by `close_dangling`, and the history table's severities."""

from __future__ import annotations

import threading
from typing import Any

import pytest

import looplab
from looplab import Limits, ScriptedModel, call, fake_client, run_agent, say, tool

release = threading.Event()  # lets the hung tool's thread end once the test is over


@pytest.fixture(autouse=True)
def _back_to_default() -> Any:
    release.clear()
    yield
    release.set()
    looplab.set_language(None)


@tool
def read(path: str) -> str:
    """Read a file."""
    return "text"


@tool(timeout_s=0.1)
def hang() -> str:
    """Never answers in time."""
    release.wait(30)
    return "late"


WRITE = {"name": "write", "description": "A definition only: no code behind it.",
         "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}


def sent_results(language: str, *calls: Any, limits: Limits | None = None) -> list[str]:
    """The `tool_result` texts of a run in `language`, as the fake received them."""
    looplab.set_language(language)
    model = ScriptedModel([*calls, say("done")])
    run_agent(fake_client(model), "t", tools=[read, hang, WRITE], limits=limits or Limits())
    return [b["content"] for request in model.requests for m in request["messages"]
            if isinstance(m["content"], list) for b in m["content"]
            if b.get("type") == "tool_result"][-len(calls):]


def test_an_unknown_tool_is_answered_in_the_runs_language() -> None:
    assert sent_results("en", call("write", path="a"))[0].startswith("unknown tool 'write'")
    said = sent_results("zh-CN", call("write", path="a"))[0]
    assert said.startswith("没有名为 'write' 的工具") and "read, hang" in said


def test_a_blocked_repeat_is_answered_in_the_runs_language() -> None:
    repeat = [call("read", path="a")] * 3
    limits = Limits(max_repeats=3)
    assert sent_results("en", *repeat, limits=limits)[-1] == (
        "not run: identical call made 3 times; change approach")
    assert sent_results("zh-CN", *repeat, limits=limits)[-1] == (
        "未执行：同样的调用已出现 3 次，换个思路")


def test_a_timeout_and_bad_input_are_answered_in_the_runs_language() -> None:
    timed_out, bad = sent_results("zh-CN", call("hang"), call("read", path=3))
    assert timed_out.startswith("0.1 秒后超时"), timed_out
    assert bad.startswith("read 的输入不合法："), bad


def test_close_dangling_says_not_run_in_the_learners_language() -> None:
    history = [{"role": "user", "content": "t"},
               {"role": "assistant", "content": [
                   {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}]}]
    looplab.set_language("zh-CN")
    closed = looplab.close_dangling(history, "被 harness 中止")
    assert closed[-1]["content"][0]["content"] == "未执行：被 harness 中止"
    default = looplab.close_dangling(history)
    assert default[-1]["content"][0]["content"] == "未执行：运行在执行这个调用之前就停了"


def test_the_history_tables_severity_is_in_the_learners_language() -> None:
    history = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"},
               {"role": "tool", "content": "x"}]
    found = looplab.check_history(history)
    assert {v.severity for v in found} == {"error", "warning"}
    looplab.set_language("zh-CN")
    table = found._repr_html_()
    assert "<td>错误</td>" in table and "<td>警告</td>" in table
    assert "<td>error</td>" not in table and "<td>warning</td>" not in table
    assert str(found).startswith(("错误 ", "警告 "))
    assert {v.severity for v in found} == {"error", "warning"}  # the field stays English
