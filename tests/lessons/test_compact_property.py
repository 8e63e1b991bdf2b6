"""Lesson 12's `compact`, as both editions ship it: any valid history and any keep >= 0
gives a valid history, or a refusal that says why (never an IndexError or an
AttributeError), whatever the summary reply looks like. And a chain of compactions
keeps what every earlier summary said."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import looplab
from looplab import AgentRun, Limits, check_history, fake_client, reply, say, think
from looplab.fake import FunctionModel, Request
from looplab.lessons.long_task import log_reader, log_reader_model, read_log_page_tool

REPO = Path(__file__).resolve().parents[2]
EDITIONS = {"en": "notebooks/12_compaction_is_a_loop_step.ipynb",
            "zh-CN": "notebooks/zh-CN/12_压缩历史是循环里的一步.ipynb"}


def shipped_compact(edition: str) -> dict[str, Any]:
    """The lesson's own cell that defines `compact`, run as it is."""
    nb = nbformat.read(REPO / EDITIONS[edition], as_version=4)
    source = next(c.source for c in nb.cells if "def compact(" in c.source)
    namespace: dict[str, Any] = {"json": json, "looplab": looplab}
    exec(compile(source, f"<lesson 12 {edition}>", "exec"), namespace)
    return namespace


COMPACTS = {edition: shipped_compact(edition) for edition in EDITIONS}
words = st.text(alphabet="abcdefgh 文字", min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def histories(draw: Callable[..., Any]) -> list[dict[str, Any]]:
    """A history the loop can produce: the task (text or blocks), then turns."""
    if draw(st.booleans()):
        task: Any = draw(words)
    else:
        task = [{"type": "text", "text": t} for t in draw(st.lists(words, min_size=1,
                                                                   max_size=3))]
    messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
    ids = iter(f"toolu_{n:02d}" for n in range(100))
    for _ in range(draw(st.integers(0, 6))):
        if messages[-1]["role"] == "assistant":
            messages.append({"role": "user", "content": draw(words)})
        content: list[dict[str, Any]] = []
        if draw(st.booleans()):
            content.append({"type": "thinking", "thinking": draw(words), "signature": "sig"})
        calls = [{"type": "tool_use", "id": next(ids), "name": "read_log_page",
                  "input": {"n": n}} for n in range(draw(st.integers(0, 3)))]
        content += calls or [{"type": "text", "text": draw(words)}]
        messages.append({"role": "assistant", "content": content})
        if calls:
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": c["id"], "content": draw(words)}
                for c in calls]})
    if draw(st.booleans()) and messages[-1]["role"] == "assistant":
        messages.append({"role": "user", "content": draw(words)})  # ends in user text
    return messages


SUMMARIES = {
    "text": lambda r: say("Read some pages."),
    "thinking first": lambda r: reply(think("Let me see."), say("Read some pages.")),
    "empty": lambda r: reply(),
}


def errors(messages: Any) -> list[str]:
    return [v.message for v in check_history(messages) if v.severity == "error"]


@pytest.mark.parametrize("edition", EDITIONS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=histories(), keep=st.integers(0, 12), summary=st.sampled_from(list(SUMMARIES)))
def test_any_history_and_any_keep_give_a_valid_history_or_say_why(
        edition: str, messages: list[dict[str, Any]], keep: int, summary: str) -> None:
    assert errors(messages) == []  # the generator makes only valid histories
    before = json.dumps(messages)
    client = fake_client(FunctionModel(SUMMARIES[summary]))
    try:
        out = COMPACTS[edition]["compact"](client, messages, keep)
    except ValueError as e:
        assert summary == "empty" and str(e).startswith("compact"), e
        return
    assert json.dumps(messages) == before  # the history given is not changed
    assert errors(out) == [], (messages, keep, out)
    task = messages[0]["content"]
    first = out[0]["content"]
    if isinstance(task, str):
        assert isinstance(first, str) and first.startswith(task)
    else:
        assert first[:len(task)] == task
    kept = out[1:]
    assert kept == messages[len(messages) - len(kept):]  # the kept part, as it was
    assert len(kept) <= keep or kept == messages[1:]


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_chain_of_compactions_keeps_what_the_earlier_summaries_said(edition: str) -> None:
    ns = COMPACTS[edition]
    run = AgentRun(client := fake_client(log_reader_model()), "Find the bug.",
                   tools=[read_log_page_tool()], limits=Limits(max_turns=30))
    summaries = 0
    while not run.finished:
        turn = run.step()
        if turn is not None and len(run.messages) > 7 and not run.finished:
            run.messages[:] = ns["compact"](client, run.messages, 2)
            summaries += 1
    assert run.result is not None and run.result.done and summaries >= 3
    note = run.messages[0]["content"]
    assert ("Pages 1 to" in note) or ("第 1 到" in note), note


def request(messages: list[dict[str, Any]]) -> Request:
    return Request({"model": "m", "max_tokens": 10, "messages": messages}, 0)


def test_the_fake_summarises_only_the_pages_a_request_sent() -> None:
    pages = read_log_page_tool()
    sent = [{"role": "user", "content": pages(n=7) + pages(n=8)}]
    assert "Pages 7 to 8 of 12" in str(log_reader(request(sent)))
    with_summary = [{"role": "user", "content": "Pages 1 to 6 of 12 read. " + pages(n=8)}]
    assert "Pages 1 to 8 of 12" in str(log_reader(request(with_summary)))
