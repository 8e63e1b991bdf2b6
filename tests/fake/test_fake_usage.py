"""The token estimate, prompt-cache accounting and count_tokens."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from looplab import MODEL, ScriptedModel, fake_client, say
from looplab.fake import estimate_tokens
from looplab.fake.usage import output_tokens, text_tokens

SYSTEM = "You are a careful coding agent. " * 20


def test_text_counting_rules() -> None:
    assert text_tokens("") == 0
    assert text_tokens("abcd") == 1
    assert text_tokens("abcde") == 2
    assert text_tokens("登录测试") == 4  # one token per CJK character
    assert text_tokens("café") == 2  # 3 ASCII quarters + 2 quarters for é


def test_estimate_of_a_small_request() -> None:
    body = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}
    # 4 per message + 3 per block + 1 for "hi"
    assert estimate_tokens(body) == 8


def test_cjk_text_is_not_a_few_tokens() -> None:
    chinese = {"messages": [{"role": "user", "content": "请帮我修复登录模块的测试" * 10}]}
    english = {"messages": [{"role": "user", "content": "fix login tests" * 10}]}
    assert estimate_tokens(chinese) >= 120
    assert estimate_tokens(chinese) > estimate_tokens(english)


def test_output_tokens_never_zero() -> None:
    assert output_tokens([]) == 1
    assert output_tokens([say("")]) == 1


blocks = st.one_of(
    st.text(max_size=40).map(lambda t: {"type": "text", "text": t}),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3).map(
        lambda d: {"type": "tool_use", "id": "toolu_1", "name": "t", "input": d}
    ),
    st.text(max_size=40).map(lambda t: {"type": "tool_result", "tool_use_id": "x", "content": t}),
)
messages = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant"]), "content": st.lists(blocks, max_size=3)}
    ),
    max_size=6,
)


@pytest.mark.slow  # seconds
@settings(max_examples=60, deadline=None)
@given(history=messages, more=messages, system=st.text(max_size=30))
def test_a_longer_history_never_counts_fewer(
    history: list[Any], more: list[Any], system: str
) -> None:
    body = {"system": system, "messages": history}
    longer = {"system": system, "messages": history + more}
    assert estimate_tokens(longer) >= estimate_tokens(body)
    assert estimate_tokens(longer) - estimate_tokens(body) >= 4 * len(more)


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=60), extra=st.text(min_size=1, max_size=20))
def test_longer_text_never_counts_fewer(text: str, extra: str) -> None:
    assert text_tokens(text + extra) >= text_tokens(text)


def _cached_history(turn: int) -> list[Any]:
    history: list[Any] = []
    for n in range(turn):
        history += [
            {"role": "user", "content": f"question {n}"},
            {"role": "assistant", "content": f"answer {n}"},
        ]
    last: dict[str, Any] = {"type": "text", "text": f"question {turn}"}
    last["cache_control"] = {"type": "ephemeral"}
    return [*history, {"role": "user", "content": [last]}]


def test_cache_breakpoints_write_then_read() -> None:
    model = ScriptedModel([say("a"), say("b"), say("c")])
    client = fake_client(model, _strict_response_validation=True)
    system = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    usages = []
    for turn in range(3):
        body = {"model": MODEL, "max_tokens": 50, "system": system}
        response = client.messages.create(**body, messages=_cached_history(turn))
        usages.append(response.usage)
        total = estimate_tokens({**body, "messages": _cached_history(turn)})
        used = response.usage
        assert (
            used.input_tokens
            + (used.cache_creation_input_tokens or 0)
            + (used.cache_read_input_tokens or 0)
            == total
        )
    first, second, third = usages
    system_tokens = estimate_tokens({"system": SYSTEM})
    # turn 1 writes the system prompt and the first question, nothing is read
    assert first.cache_read_input_tokens == 0
    assert first.cache_creation_input_tokens == estimate_tokens(
        {"system": system, "messages": _cached_history(0)}
    )
    assert first.input_tokens == 0
    # turn 2 reads all of turn 1's prefix and writes only what was added since
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    added = estimate_tokens({"messages": _cached_history(1)[1:]})
    assert second.cache_creation_input_tokens == added
    assert second.input_tokens == 0
    assert third.cache_read_input_tokens == estimate_tokens(
        {"system": system, "messages": _cached_history(1)}
    )
    assert first.cache_creation_input_tokens > system_tokens


def test_same_prefix_twice_is_read_whole() -> None:
    model = ScriptedModel([say("a"), say("b")])
    client = fake_client(model)
    system = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    question = [{"role": "user", "content": "What next?"}]
    first = client.messages.create(model=MODEL, max_tokens=9, system=system, messages=question)
    second = client.messages.create(model=MODEL, max_tokens=9, system=system, messages=question)
    assert first.usage.cache_creation_input_tokens == second.usage.cache_read_input_tokens
    assert second.usage.cache_creation_input_tokens == 0
    assert (
        first.usage.input_tokens
        == second.usage.input_tokens
        == estimate_tokens({"messages": question})
    )


def test_top_level_cache_control_marks_the_last_block() -> None:
    model = ScriptedModel([say("a"), say("b")])
    client = fake_client(model)
    question = [{"role": "user", "content": "What next?"}]
    body: dict[str, Any] = {"model": MODEL, "max_tokens": 9, "messages": question}
    first = client.messages.create(**body, cache_control={"type": "ephemeral"})
    second = client.messages.create(**body, cache_control={"type": "ephemeral"})
    assert first.usage.cache_creation_input_tokens == estimate_tokens(body) == 10
    assert second.usage.cache_read_input_tokens == 10
    assert second.usage.input_tokens == 0


def test_count_tokens_gives_the_same_estimate_and_uses_no_step() -> None:
    model = ScriptedModel([say("a")])
    client = fake_client(model, _strict_response_validation=True)
    tools = [
        {
            "name": "run_tests",
            "description": "Run tests.",
            "input_schema": {"type": "object", "properties": {}},
        }
    ]
    body: dict[str, Any] = {
        "model": MODEL,
        "system": "Be brief.",
        "tools": tools,
        "messages": [{"role": "user", "content": "登录测试失败了"}],
    }
    counted = client.messages.count_tokens(**body)
    assert counted.input_tokens == estimate_tokens(body)
    response = client.messages.create(max_tokens=10, **body)
    assert response.usage.input_tokens == counted.input_tokens
    assert len(model.requests) == 1
