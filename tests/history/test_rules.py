"""The history rules one by one: exact texts, exact paths, the bounds, and the display."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest
from anthropic.types import Message, TextBlock, ThinkingBlock, ToolUseBlock
from hypothesis import given, settings
from hypothesis import strategies as st

import looplab
from looplab.history.rules import (
    RULES,
    SHAPE_RULES,
    HistoryError,
    Violation,
    Violations,
    assert_valid,
    check_history,
    first_error,
)


def user(*content: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(content)}


def assistant(*content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(content)}


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def call(tool_id: str, name: str = "run_tests") -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {}}


def result(tool_id: str, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "ok", **extra}


ASK = {"role": "user", "content": "Fix the failing login test."}


def found(messages: Any, **kwargs: Any) -> list[tuple[str, str, str]]:
    return [(v.rule, v.path, v.message) for v in check_history(messages, **kwargs)]


# (history, the violations it must produce: rule, path, message) -- one case per rule.
CASES: dict[str, tuple[Any, list[tuple[str, str, str]]]] = {
    "tool_result_missing": (
        [ASK, assistant(text("Two checks."), call("toolu_A"), call("toolu_B")), user(text("hi"))],
        [("tool_result_missing", "messages.1",
          "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
          "toolu_A, toolu_B. Each `tool_use` block must have a corresponding `tool_result` block "
          "in the next message.")],
    ),
    "tool_result_unexpected": (
        [ASK, assistant(text("Running.")), user(text("Here:"), result("toolu_X"))],
        [("tool_result_unexpected", "messages.2.content.1",
          "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_X. "
          "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
          "message.")],
    ),
    "tool_use_id_duplicate": (
        [ASK, assistant(call("toolu_A"), call("toolu_A")), user(result("toolu_A"))],
        [("tool_use_id_duplicate", "messages.1.content.1",
          "messages.1.content.1: `tool_use` ids must be unique")],
    ),
    "content_empty": (
        [ASK, assistant(), user(text("Go on."))],
        [("content_empty", "messages.1",
          "messages.1: all messages must have non-empty content except for the optional final "
          "assistant message")],
    ),
    "text_empty": (
        [user(text("Hi"), text(""))],
        [("text_empty", "messages.0.content.1", "messages: text content blocks must be non-empty")],
    ),
    "text_whitespace": (
        [user(text(" \n\t"))],
        [("text_whitespace", "messages.0.content.0",
          "messages: text content blocks must contain non-whitespace text")],
    ),
    "first_not_user": (
        [{"role": "assistant", "content": "Hello."}, ASK],
        [("first_not_user", "messages.0", 'messages: first message must use the "user" role')],
    ),
    "tool_use_id_pattern": (
        [ASK, assistant(call("toolu 01!")), user(result("toolu 01!"))],
        [("tool_use_id_pattern", "messages.1.content.0",
          "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'")],
    ),
    "prefill_trailing_whitespace": (
        [ASK, assistant(text("The answer is "))],
        [("prefill_trailing_whitespace", "messages.1.content.0",
          "messages: final assistant content cannot end with trailing whitespace")],
    ),
    "role_unknown": (
        [ASK, {"role": "model", "content": "Hi."}],
        [("role_unknown", "messages.1", "messages.1.role: Input should be 'user' or 'assistant'")],
    ),
    "tool_result_in_assistant": (
        [ASK, assistant(text("Done."), result("toolu_A"))],
        [("tool_result_in_assistant", "messages.1.content.1",
          "messages.1.content.1: `tool_result` blocks are only allowed in `user` messages")],
    ),
    "tool_use_in_user": (
        [user(text("Run this:"), call("toolu_A"))],
        [("tool_use_in_user", "messages.0.content.1",
          "messages.0.content.1: `tool_use` blocks are only allowed in `assistant` messages")],
    ),
    "block_type_unknown": (
        [user({"type": "txt", "text": "hi"}, text("Hi"))],
        [("block_type_unknown", "messages.0.content.0",
          "messages.0.content.0.type: unknown content block type 'txt'")],
    ),
    "is_error_not_bool": (
        [ASK, assistant(call("toolu_A")), user(result("toolu_A", is_error="true"))],
        [("is_error_not_bool", "messages.2.content.0",
          "messages.2.content.0.tool_result.is_error: Input should be a valid boolean")],
    ),
    "malformed": (
        [ASK, assistant({"type": "tool_use", "id": "toolu_A", "name": "run_tests"})],
        [("malformed", "messages.1.content.0",
          "messages.1.content.0.tool_use.input: Field required")],
    ),
    "messages_empty": (
        [],
        [("messages_empty", "messages", "messages: at least one message is required")],
    ),
    "tool_results_split": (
        [ASK, assistant(call("toolu_A"), call("toolu_B")), user(result("toolu_A")),
         user(result("toolu_B"))],
        [("tool_results_split", "messages.3",
          "messages.3: `tool_result` blocks for one assistant turn are split over several user "
          "messages; the API merges them, but the model learns to make fewer parallel calls")],
    ),
    "text_after_tool_result": (
        [ASK, assistant(call("toolu_A")), user(result("toolu_A"), text("Keep going."))],
        [("text_after_tool_result", "messages.2.content.1",
          "messages.2.content.1: text after `tool_result` blocks is accepted but can make the "
          "model answer with an empty `end_turn`")],
    ),
    "same_role_in_a_row": (
        [ASK, {"role": "user", "content": "Also the logout test."}],
        [("same_role_in_a_row", "messages.1",
          'messages.1: two "user" messages in a row; the API merges them into one turn')],
    ),
}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_each_rule_has_its_exact_text(rule: str) -> None:
    messages, expected = CASES[rule]
    assert found(messages) == expected


def test_tool_not_in_tools_only_when_tools_are_given() -> None:
    history = [ASK, assistant(call("toolu_A", "deploy")), user(result("toolu_A"))]
    assert found(history) == []
    assert found(history, tools=[{"name": "run_tests", "input_schema": {"type": "object"}}]) == [
        ("tool_not_in_tools", "messages.1.content.0",
         'messages.1.content.0: `tool_use` calls "deploy", which is not in `tools`')
    ]
    assert found(history, tools=[{"name": "deploy", "input_schema": {"type": "object"}}]) == []
    # Tool objects with a `name` (looplab's `Tool`, the SDK's tool helpers) count too.
    assert found(history, tools=[SimpleNamespace(name="deploy")]) == []


def test_every_rule_is_listed_once_and_exercised() -> None:
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
    assert {r.severity for r in RULES} == {"error", "warning"}
    assert set(ids) == set(CASES) | {"tool_not_in_tools"}
    for r in RULES:
        if r.id in CASES:
            assert {v.severity for v in check_history(CASES[r.id][0])} == {r.severity}


# --- the bounds --------------------------------------------------------------------------


@pytest.mark.parametrize("empty", [[], ""])
def test_only_the_final_assistant_message_may_be_empty(empty: Any) -> None:
    assert found([ASK, {"role": "assistant", "content": empty}]) == []
    rules = [v.rule for v in check_history([{"role": "user", "content": empty}])]
    assert rules == ["content_empty"]


def test_trailing_whitespace_matters_only_at_the_very_end() -> None:
    assert found([ASK, assistant(text("Thinking it over ")), user(text("Go on."))]) == []
    assert found([ASK, assistant(text(" Leading space is fine."))]) == []
    assert [v.rule for v in check_history([ASK, {"role": "assistant", "content": "x\n"}])] == [
        "prefill_trailing_whitespace"
    ]
    # Blank final text is reported once, as blank text.
    assert [v.rule for v in check_history([ASK, assistant(text(" \n"))])] == ["text_whitespace"]
    # A user message last is not a prefill.
    assert found([{"role": "user", "content": "Hi \n"}]) == []


def test_a_skipped_message_does_not_shift_first_or_final() -> None:
    # messages[0] has a bad role, so the assistant message is not the first one...
    assert [v.rule for v in check_history([{"role": "human", "content": "Hi."},
                                           {"role": "assistant", "content": "Hello."}])] == [
        "role_unknown"]
    # ...and here the assistant message is not the final one.
    assert [v.rule for v in check_history([ASK, {"role": "assistant", "content": "Hmm "},
                                           {"role": "model", "content": "x"}])] == [
        "role_unknown"]


def test_is_error_accepts_true_false_and_absent_only() -> None:
    def history(**extra: Any) -> list[dict[str, Any]]:
        return [ASK, assistant(call("toolu_A")), user(result("toolu_A", **extra))]

    for ok in ({}, {"is_error": True}, {"is_error": False}, {"is_error": None}):
        assert found(history(**ok)) == []
    for bad in ("false", 1, 0):
        assert [v.rule for v in check_history(history(is_error=bad))] == ["is_error_not_bool"]


def test_tool_use_id_pattern_at_the_edge() -> None:
    for good in ("toolu_01A09q90qw90lq917835lq9", "a", "A-b_9", "toolu_vrtx_01"):
        assert found([ASK, assistant(call(good)), user(result(good))]) == []
    for bad in ("toolu.01", "toolu_01\n", "", "tool\u00fc_01"):
        rules = [v.rule for v in check_history([ASK, assistant(call(bad)), user(result(bad))])]
        assert rules == ["tool_use_id_pattern"], bad


def test_results_must_come_first_text_after_is_only_a_warning() -> None:
    before = [ASK, assistant(call("toolu_A")), user(text("Result:"), result("toolu_A"))]
    after = [ASK, assistant(call("toolu_A")), user(result("toolu_A"), text("Result above."))]
    assert [v.severity for v in check_history(before)] == ["error"]
    assert [v.severity for v in check_history(after)] == ["warning"]


def test_results_in_any_order_are_fine() -> None:
    history = [ASK, assistant(call("toolu_A"), call("toolu_B")),
               user(result("toolu_B"), result("toolu_A"))]
    assert found(history) == []


def test_a_dangling_tool_use_at_the_end_is_an_error() -> None:
    assert [v.rule for v in check_history([ASK, assistant(call("toolu_A"))])] == [
        "tool_result_missing"
    ]


def test_server_tool_use_needs_no_client_result() -> None:
    server = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}}
    assert found([ASK, assistant(text("Searching."), server)]) == []


def test_a_tool_result_in_the_first_message_is_unexpected() -> None:
    assert found([user(result("toolu_X"))]) == [
        ("tool_result_unexpected", "messages.0.content.0",
         "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_X. "
         "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
         "message.")
    ]


def test_role_hints_point_to_the_right_place() -> None:
    hints = {role: check_history([ASK, {"role": role, "content": "x"}])[0].hint
             for role in ("system", "tool", "bot")}
    assert "`system=`" in hints["system"]
    assert "`user` message" in hints["tool"]
    assert hints["bot"] == 'Use the role "user" or "assistant".'


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        ("hello", ("malformed", "messages", "messages: Input should be a valid list")),
        ([42], ("malformed", "messages.0", "messages.0: Input should be a valid dictionary")),
        ([{"content": "hi"}], ("malformed", "messages.0", "messages.0.role: Field required")),
        ([{"role": "user"}], ("malformed", "messages.0", "messages.0.content: Field required")),
        ([{"role": "user", "content": 3}],
         ("malformed", "messages.0", "messages.0.content: Input should be a valid list")),
        ([user("hi")], ("malformed", "messages.0.content.0",
                        "messages.0.content.0: Input should be a valid dictionary")),
        ([user({"text": "hi"})],
         ("malformed", "messages.0.content.0", "messages.0.content.0.type: Field required")),
        ([user({"type": "text", "text": None})], ("malformed", "messages.0.content.0",
                                                  "messages.0.content.0.text.text: Input should "
                                                  "be a valid string")),
    ],
)
def test_malformed_shapes(messages: Any, expected: tuple[str, str, str]) -> None:
    assert found(messages) == [expected]


# --- what learners really append -----------------------------------------------------------

ARTICLE_RESPONSE = {
    "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    "content": [
        {"type": "thinking", "thinking": "Run the tests first.", "signature": "c2ln"},
        {"type": "text", "text": "Let me run the tests.", "citations": None},
        {"type": "tool_use", "id": "toolu_01", "name": "run_tests", "input": {"module": "login"}},
    ],
    "stop_reason": "tool_use", "stop_sequence": None,
    "usage": {"input_tokens": 12, "output_tokens": 30},
}


def test_response_content_from_the_sdk_is_accepted() -> None:
    response = Message.model_validate(ARTICLE_RESPONSE)
    assert [type(b) for b in response.content] == [ThinkingBlock, TextBlock, ToolUseBlock]
    history = [ASK, {"role": "assistant", "content": response.content},
               user(result("toolu_01"))]
    assert found(history) == []
    assert found([ASK, response.to_param(), user(result("toolu_01"))]) == []
    # The SDK blocks are judged exactly like the dicts they stand for.
    no_result = [ASK, {"role": "assistant", "content": response.content}, user(text("ok"))]
    assert found(no_result) == found([ASK, ARTICLE_RESPONSE, user(text("ok"))])
    assert [v.rule for v in check_history(no_result)] == ["tool_result_missing"]


def test_text_only_of_a_response_is_the_classic_mistake() -> None:
    response = Message.model_validate(ARTICLE_RESPONSE)
    only_text = [b for b in response.content if b.type == "text"]
    error = first_error([ASK, {"role": "assistant", "content": only_text},
                         user(result("toolu_01"))])
    assert error is not None and error.rule == "tool_result_unexpected"


def test_null_fields_and_string_shorthand_are_accepted() -> None:
    history = [
        {"role": "user", "content": "Fix it.", "name": None},
        assistant({"type": "text", "text": "On it.", "citations": None, "cache_control": None},
                  {**call("toolu_01"), "caller": None, "toolset_name": None}),
        user({**result("toolu_01"), "is_error": None, "cache_control": None}),
        {"role": "assistant", "content": "Fixed."},
    ]
    assert found(history) == []


def test_a_tuple_of_messages_works_like_a_list() -> None:
    assert found((ASK, {"role": "assistant", "content": "Done."})) == []


# --- first_error, assert_valid, display ------------------------------------------------------


def test_first_error_skips_warnings_and_follows_message_order() -> None:
    history = [ASK, {"role": "user", "content": "And then?"},
               assistant(text("Go."), call("toolu_A")), user(text("x")),
               assistant(text(""))]
    assert [v.rule for v in check_history(history)] == [
        "same_role_in_a_row", "tool_result_missing", "text_empty"]
    error = first_error(history)
    assert error is not None and (error.rule, error.path) == ("tool_result_missing", "messages.2")
    assert first_error([ASK, {"role": "user", "content": "More."}]) is None


def test_assert_valid_lists_every_error_with_its_hint() -> None:
    history = [{"role": "assistant", "content": "Hi."}, user(text(""))]
    with pytest.raises(HistoryError) as caught:
        assert_valid(history)
    assert str(caught.value) == (
        "the API would reject this history with a 400 (2 error(s)):\n"
        '- messages: first message must use the "user" role\n'
        "  hint: Start the history with the `user` message that states the task.\n"
        "- messages: text content blocks must be non-empty\n"
        "  hint: Drop the empty text block, or put some words in it."
    )
    assert [v.rule for v in caught.value.violations] == ["first_not_user", "text_empty"]
    assert assert_valid([ASK, {"role": "user", "content": "More."}]) is None  # warning only


def test_violations_print_and_render() -> None:
    empty = check_history([ASK])
    assert isinstance(empty, Violations) and empty == []
    assert str(empty) == repr(empty) == "no violations"
    assert empty._repr_html_() == "<p>no violations</p>"

    some = check_history([ASK, assistant(text("a <b> & c"), {"type": "txt"})])
    assert repr(some) == str(some) == (
        "error block_type_unknown at messages.1.content.1\n"
        "  messages.1.content.1.type: unknown content block type 'txt'\n"
        "  hint: Check the spelling of `type`: the usual ones are `text`, `tool_use`, "
        "`tool_result`."
    )
    page = check_history([ASK, {"role": "<b>", "content": "x"}])._repr_html_()
    assert page.startswith("<table><thead><tr><th>rule</th><th>severity</th><th>path</th>"
                           "<th>message</th><th>hint</th></tr></thead><tbody><tr>")
    assert "<td>role_unknown</td><td>error</td><td>messages.1</td>" in page
    assert "<b>" not in page and "&#x27;user&#x27;" in page


def test_public_names() -> None:
    assert looplab.check_history is check_history
    assert looplab.first_error is first_error
    assert looplab.RULES is RULES
    assert Violation.__dataclass_fields__.keys() == {"rule", "severity", "path", "message", "hint"}


def test_check_history_does_not_change_its_input() -> None:
    history = CASES["tool_results_split"][0]
    before = copy.deepcopy(history)
    check_history(history)
    assert history == before


# --- never raises --------------------------------------------------------------------------

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4)
json_like = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=4),
    max_leaves=15,
)
# Near-valid shapes reach the deeper rules far more often than fully random values.
words = st.sampled_from(["toolu_01", "toolu_02", "toolu 03", "run_tests", "", " ", "hi", "ok "])
values = words | scalars | st.dictionaries(st.text(max_size=3), scalars, max_size=2)
ids = st.sampled_from(["toolu_01", "toolu_02", "toolu 03"]) | scalars
block = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": words | scalars}),
    st.fixed_dictionaries({"type": st.just("tool_use"), "id": ids, "name": words | scalars,
                           "input": st.just({}) | values}),
    st.fixed_dictionaries({"type": st.just("tool_result"), "tool_use_id": ids},
                          optional={"is_error": st.booleans() | values}),
    st.fixed_dictionaries({"type": st.sampled_from(["image", "txt"]) | scalars},
                          optional={"text": values, "id": values}),
)
message = st.fixed_dictionaries({
    "role": st.sampled_from(["user", "assistant", "user", "assistant", "tool"]),
    "content": words | st.lists(block, max_size=4) | st.lists(block | values, max_size=3),
})
shaped = st.lists(message, max_size=6) | st.lists(message | values, max_size=4)
RULE_IDS = {r.id: r.severity for r in RULES}


@settings(max_examples=150)
@given(json_like | shaped)
def test_check_history_never_raises(messages: Any) -> None:
    violations = check_history(messages)
    assert all(RULE_IDS[v.rule] == v.severity for v in violations)
    assert all(v.path.startswith("messages") and v.hint for v in violations)
    errors = [v for v in violations if v.severity == "error"]
    shape = [v for v in errors if v.rule in SHAPE_RULES]
    assert first_error(messages) == (shape or errors or [None])[0]
    str(violations), violations._repr_html_()


def test_first_error_reports_a_shape_error_before_a_pairing_error() -> None:
    # results sent in a "tool" role: the tool_use is unanswered (messages.1) AND the role is
    # unknown (messages.2); the API rejects the request's shape first
    messages = [
        {"role": "user", "content": "run the tests"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01", "name": "run_tests", "input": {}}]},
        {"role": "tool", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "ok"}]},
    ]
    rules = [v.rule for v in check_history(messages) if v.severity == "error"]
    assert rules[0] == "tool_result_missing" and "role_unknown" in rules
    first = first_error(messages)
    assert first is not None and first.rule == "role_unknown" and first.path == "messages.2"
