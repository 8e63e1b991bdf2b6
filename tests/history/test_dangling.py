"""close_dangling reads a history as check_history does (dicts, SDK objects, merged turns),
and after it the API finds no call of the last assistant turn without its result."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from anthropic.types import TextBlock, ToolUseBlock
from hypothesis import given, settings
from hypothesis import strategies as st

from looplab import MODEL, ScriptedModel, call, check_history, close_dangling, fake_client, say

TASK = {"role": "user", "content": "task"}


def use(i: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": i, "name": "read_file", "input": {"path": i}}


def result(i: str, text: str = "file text") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": i, "content": text}


def not_run(i: str, why: str = "stopped") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": i, "content": f"not run: {why}",
            "is_error": True}


def errors(messages: Any) -> list[Any]:
    return [v for v in check_history(messages) if v.severity == "error"]


def missing(messages: Any) -> list[str]:
    return [v.path for v in check_history(messages) if v.rule == "tool_result_missing"]


def test_sdk_blocks_and_messages_are_read_and_the_api_takes_the_closed_history() -> None:
    client = fake_client(ScriptedModel([[say("Reading two files."), call("read_file", path="a"),
                                         call("read_file", path="b")], say("Going on.")]))
    tools = [{"name": "read_file", "input_schema": {"type": "object"}}]
    response = client.messages.create(model=MODEL, max_tokens=100, messages=[TASK],
                                      tools=tools)  # type: ignore[list-item]
    ids = [b.id for b in response.content if isinstance(b, ToolUseBlock)]
    asked = {"role": "assistant", "content": response.content}
    closed = close_dangling([TASK, asked], "stopped")
    assert closed == [TASK, asked, {"role": "user", "content": [not_run(i) for i in ids]}]
    assert closed[1]["content"][1] is response.content[1]  # SDK blocks are kept as they are
    answer = client.messages.create(model=MODEL, max_tokens=100, messages=closed,
                                    tools=tools)  # type: ignore[arg-type, list-item]
    assert answer.stop_reason == "end_turn"
    # the response itself as the assistant message, as check_history reads it
    assert missing([TASK, response]) == ["messages.1"]
    assert missing(close_dangling([TASK, response])) == []


@pytest.mark.parametrize("history", ["task", {"role": "user", "content": "task"}, None, 42,
                                     b"task"], ids=["str", "dict", "None", "int", "bytes"])
def test_a_history_that_is_not_a_list_is_a_type_error_that_says_what_to_pass(
    history: Any
) -> None:
    with pytest.raises(TypeError) as caught:
        close_dangling(history)
    assert str(caught.value) == ("close_dangling needs the messages list (e.g. "
                                 f"result.messages), got {type(history).__name__}")


def test_two_assistant_messages_in_a_row_are_one_turn_and_both_calls_get_answered() -> None:
    history = [TASK, {"role": "assistant", "content": [use("toolu_a")]},
               {"role": "assistant", "content": [use("toolu_b")]},
               {"role": "user", "content": [result("toolu_b")]}]
    assert missing(history) == ["messages.1"]
    closed = close_dangling(history, "stopped")
    assert closed[3] == {"role": "user", "content": [not_run("toolu_a"), result("toolu_b")]}
    assert errors(closed) == [] and closed[:3] == history[:3]


def test_results_split_over_user_messages_are_gathered_before_the_text() -> None:
    history = [TASK, {"role": "assistant", "content": [use("toolu_a"), use("toolu_b")]},
               {"role": "user", "content": "go on"},
               {"role": "user", "content": [result("toolu_b")]}]
    closed = close_dangling(history, "stopped")
    assert closed[2:] == [{"role": "user", "content": [
        not_run("toolu_a"), result("toolu_b"), {"type": "text", "text": "go on"}]}]
    assert errors(closed) == []
    assert history[3] == {"role": "user", "content": [result("toolu_b")]}  # input unchanged


def test_split_results_the_api_already_accepts_are_left_alone() -> None:
    history = [TASK, {"role": "assistant", "content": [use("toolu_a"), use("toolu_b")]},
               {"role": "user", "content": [result("toolu_a")]},
               {"role": "user", "content": [result("toolu_b")]}]
    assert close_dangling(history) == history


def test_an_empty_final_assistant_message_is_dropped_so_the_history_stays_valid() -> None:
    history = [TASK, {"role": "assistant", "content": [use("toolu_a")]},
               {"role": "assistant", "content": []}]
    closed = close_dangling(history, "stopped")
    assert closed == [*history[:2], {"role": "user", "content": [not_run("toolu_a")]}]
    assert errors(closed) == []


def test_a_call_skipped_earlier_in_the_history_is_not_hidden() -> None:
    # the grader closes a student's history before judging it: a skipped result mid-run
    # must stay visible
    history = [TASK, {"role": "assistant", "content": [use("toolu_a"), use("toolu_b")]},
               {"role": "user", "content": [result("toolu_a")]},
               {"role": "assistant", "content": "Done."}]
    assert close_dangling(history) == history and missing(history) == ["messages.1"]


# -- properties -----------------------------------------------------------------------------

IDS = [f"toolu_{c}" for c in "abcd"]
texts = st.sampled_from(["go on", "Reading.", "", "  "])
sdk_use = st.builds(lambda i: ToolUseBlock(type="tool_use", id=i, name="read_file",
                                           input={"path": i}), st.sampled_from(IDS))
blocks = st.one_of(
    texts.map(lambda t: {"type": "text", "text": t}),
    texts.map(lambda t: TextBlock(type="text", text=t or "x")),
    st.sampled_from(IDS).map(use), sdk_use,
    st.sampled_from(IDS).map(result),
    st.sampled_from([{"type": "tool_result"}, {"type": "tool_use", "id": "toolu_x"}, 42,
                     {"type": "bogus"}, {"text": "no type"}]),
)
messages = st.one_of(
    st.builds(lambda r, c: {"role": r, "content": c},
              st.sampled_from(["user", "assistant", "assistant"]),
              st.one_of(texts, st.lists(blocks, max_size=4))),
    st.sampled_from([{"role": "system", "content": "x"}, {"role": "user"}, "text", None]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(messages, max_size=8))
def test_any_history_is_closed_without_breaking_anything_else(history: list[Any]) -> None:
    before = copy.deepcopy(history)
    closed = close_dangling(history)
    assert history == before  # the input is not changed
    assert close_dangling(closed) == closed  # idempotent
    assert set(missing(closed)) <= set(missing(history))  # nothing newly broken...
    assert {v.rule for v in errors(closed)} <= {v.rule for v in errors(history)}
    last = max((n for n, m in enumerate(closed) if isinstance(m, dict)
                and m.get("role") == "assistant" and "content" in m), default=-1)
    turn_start = max((n for n, m in enumerate(closed[:last]) if isinstance(m, dict)
                      and m.get("role") == "user" and "content" in m), default=-1)
    assert all(int(p.split(".")[1]) <= turn_start for p in missing(closed))  # ...last turn ok


@st.composite
def stopped_runs(draw: st.DrawFn) -> list[Any]:
    """A valid run, then a last assistant turn (maybe two messages) whose calls got only
    some of their results, maybe split over user messages and mixed with text."""
    history: list[Any] = [TASK]
    ids = iter(f"toolu_{n:02d}" for n in range(100))
    for _ in range(draw(st.integers(0, 2))):
        asked = [next(ids) for _ in range(draw(st.integers(1, 3)))]
        history += [{"role": "assistant", "content": [use(i) for i in asked]},
                    {"role": "user", "content": [result(i) for i in asked]}]
    asked = [next(ids) for _ in range(draw(st.integers(1, 4)))]
    as_sdk = draw(st.lists(st.booleans(), min_size=len(asked), max_size=len(asked)))
    calls = [ToolUseBlock(type="tool_use", id=i, name="read_file", input={"path": i}) if sdk
             else use(i) for i, sdk in zip(asked, as_sdk, strict=True)]
    cut = draw(st.integers(0, len(calls)))
    history += [{"role": "assistant", "content": [{"type": "text", "text": "Reading."},
                                                  *calls[:cut]] if cut < len(calls) else calls}]
    if cut < len(calls):
        history.append({"role": "assistant", "content": calls[cut:]})
    given_back = draw(st.lists(st.sampled_from(asked), unique=True))
    items = draw(st.permutations([result(i) for i in given_back]
                                 + [{"type": "text", "text": "go on"}] * draw(st.integers(0, 2))))
    cuts = sorted(draw(st.lists(st.integers(1, max(1, len(items) - 1)), max_size=2)))
    for a, b in zip([0, *cuts], [*cuts, len(items)], strict=True):
        if items[a:b]:
            history.append({"role": "user", "content": items[a:b]})
    return history


@settings(max_examples=300, deadline=None)
@given(stopped_runs())
def test_after_close_dangling_no_call_is_missing_its_result(history: list[Any]) -> None:
    closed = close_dangling(history)
    assert missing(closed) == []
    assert errors(closed) == []
    kept = [b for m in history[1:] if m["role"] == "user" for b in m["content"]
            if isinstance(b, dict) and b["type"] == "tool_result"]
    assert all(any(b is k for m in closed for b in m["content"] if isinstance(m["content"],
                                                                             list)) for k in kept)
