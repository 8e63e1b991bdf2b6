"""Mutation tests: valid histories stay clean; each known mistake fires exactly its rule.

Histories come from a hand-written article transcript and from a hypothesis strategy (random
turns, parallel calls, with or without text, plain dicts or SDK blocks).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from anthropic.types import TextBlock, ToolUseBlock
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from looplab.history.rules import check_history

History = list[dict[str, Any]]

ARTICLE: History = [
    {"role": "user", "content": "The login test fails. Find out why and fix it."},
    {"role": "assistant", "content": [
        {"type": "text", "text": "Let me run the tests first."},
        {"type": "tool_use", "id": "toolu_01", "name": "run_tests", "input": {"module": "login"}},
    ]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "1 failed: test_login"},
    ]},
    {"role": "assistant", "content": [
        {"type": "text", "text": "I will read the test and the code together."},
        {"type": "tool_use", "id": "toolu_02", "name": "read_file",
         "input": {"path": "tests/test_login.py"}},
        {"type": "tool_use", "id": "toolu_03", "name": "read_file", "input": {"path": "login.py"}},
    ]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_02", "content": "def test_login(): ..."},
        {"type": "tool_result", "tool_use_id": "toolu_03", "content": "def login(): ...",
         "is_error": False},
    ]},
    {"role": "assistant", "content": [{"type": "text", "text": "The password check is inverted."}]},
]


def rules(messages: Any) -> list[str]:
    return [v.rule for v in check_history(messages)]


def test_the_article_is_clean() -> None:
    assert rules(ARTICLE) == []


# --- mutations on the article: (name, how to break it, exactly the rules that must fire) ----


def _edit(fn: Callable[[History], None]) -> Callable[[], History]:
    def make() -> History:
        history = copy.deepcopy(ARTICLE)
        fn(history)
        return history

    return make


def _drop_result(h: History) -> None:
    del h[4]["content"][1]


def _text_first(h: History) -> None:
    h[2]["content"].insert(0, {"type": "text", "text": "Here is the output:"})


def _split_results(h: History) -> None:
    h[4:5] = [{"role": "user", "content": [b]} for b in h[4]["content"]]


def _keep_only_text(h: History) -> None:
    h[3]["content"] = [b for b in h[3]["content"] if b["type"] == "text"]


def _duplicate_id(h: History) -> None:
    h[3]["content"][2]["id"] = h[4]["content"][1]["tool_use_id"] = "toolu_01"


def _empty_block(h: History) -> None:
    h[1]["content"][0]["text"] = ""


def _whitespace_text(h: History) -> None:
    h[3]["content"][0]["text"] = "  \n"


def _empty_message(h: History) -> None:
    h[0]["content"] = []


def _first_assistant(h: History) -> None:
    h.insert(0, {"role": "assistant", "content": "Hello, how can I help?"})


def _bad_id(h: History) -> None:
    h[3]["content"][1]["id"] = h[4]["content"][0]["tool_use_id"] = "toolu:02"


def _trailing_whitespace(h: History) -> None:
    h[5]["content"][0]["text"] += "\n"


def _result_in_assistant(h: History) -> None:
    h[5]["content"].append({"type": "tool_result", "tool_use_id": "toolu_03", "content": "x"})


def _unknown_role(h: History) -> None:
    h[5]["role"] = "model"


def _unknown_block(h: History) -> None:
    h[1]["content"].insert(1, {"type": "tool_call", "id": "toolu_09"})


def _is_error_string(h: History) -> None:
    h[2]["content"][0]["is_error"] = "false"


def _message_between(h: History) -> None:
    h.insert(4, {"role": "user", "content": "Any news?"})


def _assistant_between(h: History) -> None:
    h.insert(4, {"role": "assistant", "content": "Reading both files now."})


def _tool_use_in_user(h: History) -> None:
    h[0]["content"] = [{"type": "text", "text": "Run this:"},
                       {"type": "tool_use", "id": "toolu_00", "name": "run_tests", "input": {}}]


def _text_after_results(h: History) -> None:
    h[4]["content"].append({"type": "text", "text": "Both files are above."})


def _tool_role(h: History) -> None:
    h[4]["role"] = "tool"


def _missing_input(h: History) -> None:
    del h[1]["content"][1]["input"]


ARTICLE_MUTATIONS: list[tuple[str, Callable[[History], None], list[str]]] = [
    ("drop a result", _drop_result, ["tool_result_missing"]),
    ("move text before the results", _text_first, ["tool_result_missing"]),
    ("split parallel results", _split_results, ["tool_results_split"]),
    ("keep only the text of an assistant turn", _keep_only_text, ["tool_result_unexpected"]),
    ("duplicate a tool_use id", _duplicate_id, ["tool_use_id_duplicate"]),
    ("empty a text block", _empty_block, ["text_empty"]),
    ("whitespace-only text", _whitespace_text, ["text_whitespace"]),
    ("empty a message", _empty_message, ["content_empty"]),
    ("first message from the assistant", _first_assistant, ["first_not_user"]),
    ("bad id characters", _bad_id, ["tool_use_id_pattern"]),
    ("trailing whitespace in the prefill", _trailing_whitespace, ["prefill_trailing_whitespace"]),
    ("tool_result in an assistant message", _result_in_assistant, ["tool_result_in_assistant"]),
    ("unknown role", _unknown_role, ["role_unknown"]),
    ("unknown block type", _unknown_block, ["block_type_unknown"]),
    ("is_error as a string", _is_error_string, ["is_error_not_bool"]),
    ("a user message in between", _message_between, ["tool_result_missing"]),
    # The API merges the two assistant messages, so only the habit is reported.
    ("an assistant message in between", _assistant_between, ["same_role_in_a_row"]),
    ("tool_use in a user message", _tool_use_in_user, ["tool_use_in_user"]),
    ("text after the results", _text_after_results, ["text_after_tool_result"]),
    # Cascades: the broken message is skipped, so its partner rule fires too.
    ("a `tool` role for results", _tool_role,
     ["tool_result_missing", "role_unknown", "same_role_in_a_row"]),
    ("a tool_use without input", _missing_input, ["malformed", "tool_result_unexpected"]),
]


@pytest.mark.parametrize(("mutate", "expected"), [(m, e) for _, m, e in ARTICLE_MUTATIONS],
                         ids=[name for name, _, _ in ARTICLE_MUTATIONS])
def test_each_mistake_on_the_article_fires_exactly_its_rules(
    mutate: Callable[[History], None], expected: list[str]
) -> None:
    assert rules(_edit(mutate)()) == expected


def test_article_mutation_messages_name_the_right_ids() -> None:
    [missing] = check_history(_edit(_drop_result)())
    assert missing.message.startswith(
        "messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_03. ")
    [unexpected] = check_history(_edit(_keep_only_text)())
    assert unexpected.path == "messages.4.content.0"
    assert "found in `tool_result` blocks: toolu_02, toolu_03. Each" in unexpected.message
    [text_first] = check_history(_edit(_text_first)())
    assert "immediately after: toolu_01. Each" in text_first.message


# --- random valid histories ----------------------------------------------------------------

words = st.sampled_from(["Checking.", "Let me look", "Done: all tests pass.", "ok", "\u4fee\u590d"])
suffix = st.text("abcXYZ019_-", min_size=0, max_size=6)


@st.composite
def histories(draw: st.DrawFn) -> History:
    """A valid history: a task, then turns of calls (answered together) and text."""
    history: History = [{"role": "user", "content": draw(words)}]
    count = 0
    for _ in range(draw(st.integers(1, 6))):
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            count += 1
            calls.append({"type": "tool_use", "id": f"toolu_{count:02d}{draw(suffix)}",
                          "name": draw(st.sampled_from(["run_tests", "read_file"])),
                          "input": {"n": count}})
        texts = [{"type": "text", "text": draw(words)}] if not calls or draw(st.booleans()) else []
        history.append({"role": "assistant", "content": texts + calls})
        if calls:
            order = draw(st.permutations(calls))
            history.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": c["id"], "content": "result",
                 **draw(st.sampled_from([{}, {"is_error": True}, {"is_error": None}]))}
                for c in order]})
        elif draw(st.booleans()):
            history.append({"role": "user", "content": draw(words)})
        else:
            break  # an end_turn reply closes the history
    return history


def _as_sdk(history: History) -> list[Any]:
    """The same history with assistant blocks as the SDK's pydantic objects."""
    kinds = {"text": TextBlock, "tool_use": ToolUseBlock}
    return [
        {**m, "content": [kinds[b["type"]].model_validate(b) for b in m["content"]]}
        if m["role"] == "assistant" else m
        for m in history
    ]


@settings(max_examples=60)
@given(histories())
def test_valid_histories_are_clean(history: History) -> None:
    assert rules(history) == []
    assert rules(_as_sdk(history)) == []


# --- the same mistakes, applied at random places ---------------------------------------------


def _blocks(h: History, n: int) -> list[dict[str, Any]]:
    """messages[n]'s content as a list of blocks (string shorthand expanded in place)."""
    if isinstance(h[n]["content"], str):
        h[n]["content"] = [{"type": "text", "text": h[n]["content"]}]
    content: list[dict[str, Any]] = h[n]["content"]
    return content


def _where(h: History, kind: str) -> list[tuple[int, int]]:
    return [(n, m) for n, msg in enumerate(h) if isinstance(msg["content"], list)
            for m, b in enumerate(msg["content"]) if b["type"] == kind]


def _results_messages(h: History) -> list[int]:
    return sorted({n for n, _ in _where(h, "tool_result")})


def _rename(h: History, old: str, new: str) -> None:
    for n, m in _where(h, "tool_use") + _where(h, "tool_result"):
        block = h[n]["content"][m]
        for key in ("id", "tool_use_id"):
            if block.get(key) == old:
                block[key] = new


Mutation = Callable[[History, st.DataObject], "list[str] | None"]


def m_drop_result(h: History, data: st.DataObject) -> list[str] | None:
    targets = _results_messages(h)
    if not targets:
        return None
    n = data.draw(st.sampled_from(targets))
    del h[n]["content"][data.draw(st.integers(0, len(h[n]["content"]) - 1))]
    if not h[n]["content"]:
        h[n]["content"] = "Skipped it."
    return ["tool_result_missing"]


def m_text_first(h: History, data: st.DataObject) -> list[str] | None:
    targets = _results_messages(h)
    if not targets:
        return None
    h[data.draw(st.sampled_from(targets))]["content"].insert(0, {"type": "text", "text": "Out:"})
    return ["tool_result_missing"]


def m_split(h: History, data: st.DataObject) -> list[str] | None:
    targets = [n for n in _results_messages(h) if len(h[n]["content"]) > 1]
    if not targets:
        return None
    n = data.draw(st.sampled_from(targets))
    cut = data.draw(st.integers(1, len(h[n]["content"]) - 1))
    content = h[n]["content"]
    h[n:n + 1] = [{"role": "user", "content": content[:cut]},
                  {"role": "user", "content": content[cut:]}]
    return ["tool_results_split"]


def m_keep_only_text(h: History, data: st.DataObject) -> list[str] | None:
    targets = sorted({n for n, _ in _where(h, "tool_use")} & {n for n, _ in _where(h, "text")})
    if not targets:
        return None
    n = data.draw(st.sampled_from(targets))
    h[n]["content"] = [b for b in h[n]["content"] if b["type"] == "text"]
    return ["tool_result_unexpected"]


def m_duplicate_id(h: History, data: st.DataObject) -> list[str] | None:
    uses = _where(h, "tool_use")
    if len(uses) < 2:
        return None
    i, j = sorted(data.draw(st.lists(st.sampled_from(range(len(uses))), min_size=2, max_size=2,
                                     unique=True)))
    first, later = (h[n]["content"][m]["id"] for n, m in (uses[i], uses[j]))
    _rename(h, later, first)
    return ["tool_use_id_duplicate"]


def m_blank_text(h: History, data: st.DataObject) -> list[str] | None:
    n = data.draw(st.sampled_from(range(len(h))))
    texts = [m for m, b in enumerate(_blocks(h, n)) if b["type"] == "text"]
    if not texts:
        return None
    blank = data.draw(st.sampled_from(["", " ", "\n\t "]))
    h[n]["content"][data.draw(st.sampled_from(texts))]["text"] = blank
    return ["text_whitespace" if blank else "text_empty"]


def m_first_assistant(h: History, data: st.DataObject) -> list[str] | None:
    h.insert(0, {"role": "assistant", "content": data.draw(words)})
    return ["first_not_user"]


def m_bad_id(h: History, data: st.DataObject) -> list[str] | None:
    uses = _where(h, "tool_use")
    if not uses:
        return None
    n, m = data.draw(st.sampled_from(uses))
    old = h[n]["content"][m]["id"]
    _rename(h, old, old + data.draw(st.sampled_from([" ", ".", "/x", "\u00e9", ":"])))
    return ["tool_use_id_pattern"]


def m_trailing_whitespace(h: History, data: st.DataObject) -> list[str] | None:
    if h[-1]["role"] != "assistant" or _blocks(h, len(h) - 1)[-1]["type"] != "text":
        return None
    h[-1]["content"][-1]["text"] += data.draw(st.sampled_from([" ", "\n", "\t", " \n"]))
    return ["prefill_trailing_whitespace"]


def m_result_in_assistant(h: History, data: st.DataObject) -> list[str] | None:
    n = data.draw(st.sampled_from([n for n, msg in enumerate(h) if msg["role"] == "assistant"]))
    _blocks(h, n).append({"type": "tool_result", "tool_use_id": "toolu_99", "content": "x"})
    return ["tool_result_in_assistant"]


def m_unknown_role(h: History, data: st.DataObject) -> list[str] | None:
    # Only these two can vanish without changing who speaks next to whom.
    targets = [0] + ([len(h) - 1] if h[-1]["role"] == "assistant" else [])
    h[data.draw(st.sampled_from(targets))]["role"] = data.draw(st.sampled_from(
        ["model", "human", "system", "tool", "User"]))
    return ["role_unknown"]


def m_unknown_block(h: History, data: st.DataObject) -> list[str] | None:
    n = data.draw(st.sampled_from(range(len(h))))
    blocks = _blocks(h, n)
    blocks.insert(data.draw(st.integers(0, len(blocks))), {"type": "tool_call", "name": "x"})
    return ["block_type_unknown"]


def m_is_error(h: History, data: st.DataObject) -> list[str] | None:
    results = _where(h, "tool_result")
    if not results:
        return None
    n, m = data.draw(st.sampled_from(results))
    h[n]["content"][m]["is_error"] = data.draw(st.sampled_from(["true", "false", 1, 0, [], {}]))
    return ["is_error_not_bool"]


def m_message_between(h: History, data: st.DataObject) -> list[str] | None:
    targets = _results_messages(h)
    if not targets:
        return None
    h.insert(data.draw(st.sampled_from(targets)), {"role": "user", "content": data.draw(words)})
    return ["tool_result_missing"]


def m_empty_message(h: History, data: st.DataObject) -> list[str] | None:
    # Messages whose content is all text and that are not the final message.
    targets = [n for n in range(len(h) - 1) if isinstance(h[n]["content"], str)
               or all(b["type"] == "text" for b in h[n]["content"])]
    n = data.draw(st.sampled_from(targets))
    h[n]["content"] = data.draw(st.sampled_from(["", []]))
    return ["content_empty"]


def m_text_after_results(h: History, data: st.DataObject) -> list[str] | None:
    targets = _results_messages(h)
    if not targets:
        return None
    h[data.draw(st.sampled_from(targets))]["content"].append({"type": "text", "text": "More."})
    return ["text_after_tool_result"]


MUTATIONS: list[Mutation] = [
    m_drop_result, m_text_first, m_split, m_keep_only_text, m_duplicate_id, m_blank_text,
    m_first_assistant, m_bad_id, m_trailing_whitespace, m_result_in_assistant, m_unknown_role,
    m_unknown_block, m_is_error, m_message_between, m_empty_message, m_text_after_results,
]


@settings(max_examples=150)
@given(histories(), st.sampled_from(MUTATIONS), st.data())
def test_each_mistake_anywhere_fires_exactly_its_rule(
    history: History, mutate: Mutation, data: st.DataObject
) -> None:
    broken = copy.deepcopy(history)
    expected = mutate(broken, data)
    assume(expected is not None)
    assert rules(broken) == expected
