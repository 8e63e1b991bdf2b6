"""looplab.exercises (lessons 02, 04, 05, 06 and grading): each checker passes a right
answer and fails each typical mistake.

The reference solutions are written the way the article writes them; each wrong solution
is one mistake a learner really makes, and must fail the check that names it.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

import looplab
from looplab import MODEL
from looplab.exercises import (
    Check,
    Scorecard,
    check_agent_loop,
    check_close_dangling,
    check_token_formula,
    check_tool_results_message,
)

# -- reference solutions, the article's style --------------------------------------------------


def make_run_agent(
    *,
    append: Callable[[Any], Any] = lambda response: response.content,
    count: Callable[[Any], int] = lambda u: (
        u.input_tokens
        + (u.cache_creation_input_tokens or 0)
        + (u.cache_read_input_tokens or 0)
        + u.output_tokens
    ),
    any_stop_is_done: bool = False,
    catch_tool_errors: bool = True,
    split_results: bool = False,
    use_time_monotonic: bool = False,
    limit_turns: bool = True,
    detect_repeats: bool = True,
) -> Callable[..., tuple[str, list[dict[str, Any]]]]:
    """The article's run_agent with client, tools and clock passed in; each flag is a mistake."""

    def run_agent(
        client: Any,
        task: str,
        *,
        tools: list[looplab.Tool],
        max_turns: int = 10,
        token_budget: int = 200_000,
        timeout_s: float = 300,
        max_repeats: int = 3,
        clock: Callable[[], float] = time.monotonic,
    ) -> tuple[str, list[dict[str, Any]]]:
        if use_time_monotonic:
            clock = time.monotonic
        definitions = [t.definition() for t in tools]
        impls = {t.name: t for t in tools}

        def run_tool(block: Any) -> dict[str, Any]:
            if not catch_tool_errors:
                output = impls[block.name](**block.input)
                return {"type": "tool_result", "tool_use_id": block.id, "content": output}
            try:
                output = impls[block.name](**block.input)
                return {"type": "tool_result", "tool_use_id": block.id, "content": output}
            except Exception as e:
                return {
                    "type": "tool_result",
                    "tool_use_id": block.id,
                    "content": f"{type(e).__name__}: {e}",
                    "is_error": True,
                }

        messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
        used, start, seen = 0, clock(), {}
        turn = 0
        while turn < max_turns or not limit_turns:
            turn += 1
            if used >= token_budget:
                return "stopped: token_budget", messages
            if clock() - start >= timeout_s:
                return "stopped: timeout", messages
            response = client.messages.create(
                model=MODEL, max_tokens=1024, tools=definitions, messages=messages
            )
            used += count(response.usage)
            messages.append({"role": "assistant", "content": append(response)})
            if response.stop_reason == "end_turn" or (
                any_stop_is_done and response.stop_reason != "tool_use"
            ):
                return "done", messages
            if response.stop_reason != "tool_use":
                return f"stopped: {response.stop_reason}", messages
            calls = [b for b in response.content if b.type == "tool_use"]
            for b in calls if detect_repeats else []:
                key = (b.name, json.dumps(b.input, sort_keys=True))
                seen[key] = seen.get(key, 0) + 1
                if seen[key] >= max_repeats:
                    return f"stopped: repeated {b.name}", messages
            if split_results:
                messages += [{"role": "user", "content": [run_tool(b)]} for b in calls]
            else:
                messages.append({"role": "user", "content": [run_tool(b) for b in calls]})
        return "stopped: max_turns", messages

    return run_agent


def tool_results_message(content: Any, results: dict[str, tuple[str, bool]]) -> dict[str, Any]:
    blocks = []
    for block in content:
        if block.type == "tool_use":
            text, is_error = results[block.id]
            result = {"type": "tool_result", "tool_use_id": block.id, "content": text}
            if is_error:
                result["is_error"] = True
            blocks.append(result)
    return {"role": "user", "content": blocks}


def close_dangling(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    calls = [b for b in messages[last]["content"] if b["type"] == "tool_use"]
    if not calls:
        return messages
    if last == len(messages) - 1:
        messages = [*messages, {"role": "user", "content": []}]
    answered = {b.get("tool_use_id") for b in messages[last + 1]["content"]}
    missing = [
        {"type": "tool_result", "tool_use_id": b["id"], "content": "not run: the run stopped",
         "is_error": True}
        for b in calls
        if b["id"] not in answered
    ]  # fmt: skip
    messages[last + 1] = {**messages[last + 1], "content": missing + messages[last + 1]["content"]}
    return messages


def cumulative_input(n_turns: int, S: float, delta: float) -> float:
    return n_turns * S + delta * n_turns * (n_turns - 1) / 2


def stub(*args: Any, **kwargs: Any) -> Any:
    # what the generated exercise copy contains
    raise NotImplementedError("write the loop: send, check stop_reason, run tools, repeat")


STUB_HINT = "NotImplementedError: write the loop: send, check stop_reason, run tools, repeat"


def failed(card: Scorecard) -> list[str]:
    return [c.name for c in card if not c.passed]


def hint(card: Scorecard, name_start: str) -> str:
    return next(c.hint for c in card if c.name.startswith(name_start))


# -- Scorecard ------------------------------------------------------------------------------


def test_scorecard_is_a_list_of_name_passed_hint() -> None:
    card = Scorecard("check_x(f)", [Check("a", True), Check("b", False, "do b")])
    assert card == [("a", True, ""), ("b", False, "do b")]
    assert card.passed is False
    assert str(card) == repr(card) == "check_x(f): 1 of 2 checks passed\n✓ a\n✗ b — do b"
    assert Scorecard("t", [Check("a", True)]).passed is True
    assert Scorecard("t").passed is False  # nothing checked is not a pass


def test_scorecard_html_escapes_marks_and_aligns_every_cell_left() -> None:
    card = Scorecard("check_x(f)", [Check("a <b>", False, 'use "x" & y')])
    cell = "text-align:left;vertical-align:top;padding:2px 8px"
    assert card._repr_html_() == (
        "<p><b>check_x(f): 0 of 1 checks passed</b></p>"
        f'<table><tbody><tr><td style="{cell};color:#cf222e">✗</td>'
        f'<td style="{cell}">a &lt;b&gt;</td><td style="{cell}">use &quot;x&quot; &amp; y</td>'
        "</tr></tbody></table>"
    )


def test_a_stub_shows_as_one_line_not_one_row_per_check() -> None:
    card = Scorecard("check_x(f)", [Check(n, False, "NotImplementedError: write f") for n in "abc"])
    assert card.unwritten == "write f"
    assert str(card) == "check_x(f): 0 of 3 checks passed\n✗ not written yet: write f"
    page = card._repr_html_()
    assert page.count("<tr>") == 1 and "not written yet: write f" in page
    # one check that passed, or two different failures, is not a stub: every row shows
    partly = Scorecard("t", [Check("a", True), Check("b", False, "NotImplementedError: x")])
    assert partly.unwritten is None and len(str(partly).splitlines()) == 3
    mixed = Scorecard("t", [Check("a", False, "NotImplementedError: x"), Check("b", False, "y")])
    assert mixed.unwritten is None


# -- check_agent_loop -------------------------------------------------------------------------

LOOP_CHECKS = [
    "done: end_turn after a parallel call",
    "max_turns: at most max_turns requests",
    "token_budget: cache tokens count too",
    "timeout: the clock is read before each request",
    "repeated calls: the max_repeats-th identical call stops",
    "max_tokens: a cut-off reply is not done",
    "refusal: a refused reply is not done",
    "tool error: sent back as is_error, the loop goes on",
]


def test_reference_loop_passes_every_check() -> None:
    card = check_agent_loop(make_run_agent())
    assert [c.name for c in card] == LOOP_CHECKS
    assert card.passed, str(card)
    assert str(card).splitlines()[0] == "check_agent_loop(run_agent): all 8 checks passed"


def text_only(response: Any) -> list[dict[str, Any]]:
    # the mistake: keep what the model said, drop its tool_use blocks
    return [{"type": "text", "text": b.text} for b in response.content if b.type == "text"]


def test_the_checks_are_deterministic() -> None:
    wrong = make_run_agent(append=text_only)
    assert str(check_agent_loop(wrong)) == str(check_agent_loop(wrong))


def test_stub_fails_every_loop_check_in_one_line() -> None:
    card = check_agent_loop(stub)
    assert failed(card) == LOOP_CHECKS
    assert {c.hint for c in card} == {STUB_HINT}
    assert str(card).splitlines() == [
        "check_agent_loop(stub): 0 of 8 checks passed",
        "✗ not written yet: write the loop: send, check stop_reason, run tools, repeat",
    ]


@pytest.mark.parametrize(
    ("mistake", "fails", "hint_part"),
    [
        (
            {"any_stop_is_done": True},
            ["max_tokens: a cut-off reply is not done", "refusal: a refused reply is not done"],
            "got 'done', expected 'stopped: max_tokens': the first reply stopped with "
            "stop_reason max_tokens",
        ),
        (
            {"count": lambda u: u.input_tokens + u.output_tokens},
            ["token_budget: cache tokens count too"],
            "got 'done', expected 'stopped: token_budget': every reply's usage adds up to 550 "
            "tokens, 400 of them read from the cache",
        ),
        (
            {"catch_tool_errors": False},
            ["tool error: sent back as is_error, the loop goes on"],
            "the tool's ValueError: no tests for module 'signup'; modules with tests: login "
            "escaped the loop and ended it: the model never got a tool_result for that call",
        ),
        (
            {"use_time_monotonic": True},
            ["timeout: the clock is read before each request"],
            "every reply takes 40 s on the clock the checker passes in; timeout_s=60",
        ),
        (
            {"limit_turns": False},
            ["max_turns: at most max_turns requests"],
            "got 'done', expected 'stopped: max_turns': the model keeps calling tools",
        ),
        (
            {"detect_repeats": False},
            ["repeated calls: the max_repeats-th identical call stops"],
            "got 'done', expected 'stopped: repeated <tool name>': the model asks for "
            "run_tests with module 'login' four times",
        ),
    ],
)
def test_each_typical_mistake_fails_its_own_check(
    mistake: dict[str, Any], fails: list[str], hint_part: str
) -> None:
    card = check_agent_loop(make_run_agent(**mistake))
    assert failed(card) == fails
    assert hint_part in hint(card, fails[0])


def test_appending_only_the_text_fails_with_the_apis_400_and_the_fix() -> None:
    card = check_agent_loop(make_run_agent(append=text_only))
    assert "done: end_turn after a parallel call" in failed(card)
    assert hint(card, "done").startswith("the API answered 400: messages.2.content.0: unexpected")
    assert "tool_use" in hint(card, "done")


def test_splitting_the_results_fails_on_the_history() -> None:
    card = check_agent_loop(make_run_agent(split_results=True))
    assert failed(card) == ["done: end_turn after a parallel call"]
    assert hint(card, "done").startswith("history: ")


def test_running_a_tool_cut_off_by_max_tokens_is_caught() -> None:
    def runs_cut_calls(client: Any, task: str, **kw: Any) -> tuple[str, list[Any]]:
        impls = {t.name: t for t in kw["tools"]}
        messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
        response = client.messages.create(model=MODEL, max_tokens=1024, messages=messages,
                                          tools=[t.definition() for t in kw["tools"]])  # fmt: skip
        for b in response.content:
            if b.type == "tool_use":
                impls[b.name](**b.input)
        messages.append({"role": "assistant", "content": response.content})
        return f"stopped: {response.stop_reason}", messages

    card = check_agent_loop(runs_cut_calls)
    assert hint(card, "max_tokens") == (
        "a tool ran although the reply that asked for it was cut off by max_tokens (its input "
        "may be incomplete)"
    )


def test_a_wrong_return_shape_is_explained() -> None:
    card = check_agent_loop(lambda client, task, **kw: "done")
    assert {c.hint for c in card} == {"returned str, not a (status, messages) pair"}


# -- check_tool_results_message ---------------------------------------------------------------

MESSAGE_CHECKS = [
    "one user message",
    "tool_result blocks only",
    "one result per tool_use, ids paired",
    "results in call order",
    "is_error passed through",
    "the tool output is the content",
    "the API accepts the next request",
]


def test_reference_message_passes() -> None:
    card = check_tool_results_message(tool_results_message)
    assert [c.name for c in card] == MESSAGE_CHECKS
    assert card.passed, str(card)


def test_stub_fails_every_message_check() -> None:
    card = check_tool_results_message(stub)
    assert failed(card) == MESSAGE_CHECKS and {c.hint for c in card} == {STUB_HINT}


def split_messages(content: Any, results: dict[str, tuple[str, bool]]) -> list[dict[str, Any]]:
    blocks = tool_results_message(content, results)["content"]
    return [{"role": "user", "content": [b]} for b in blocks]


def with_text(content: Any, results: dict[str, tuple[str, bool]]) -> dict[str, Any]:
    message = tool_results_message(content, results)
    message["content"].append({"type": "text", "text": "Here are the results."})
    return message


def in_results_order(content: Any, results: dict[str, tuple[str, bool]]) -> dict[str, Any]:
    return {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": i, "content": text, "is_error": err}
        for i, (text, err) in results.items()
    ]}  # fmt: skip


def no_is_error(content: Any, results: dict[str, tuple[str, bool]]) -> dict[str, Any]:
    message = tool_results_message(content, results)
    for block in message["content"]:
        block.pop("is_error", None)
    return message


def first_only(content: Any, results: dict[str, tuple[str, bool]]) -> dict[str, Any]:
    message = tool_results_message(content, results)
    message["content"] = message["content"][:1]
    return message


@pytest.mark.parametrize(
    ("fn", "fails"),
    [
        (split_messages, ["one user message"]),
        (with_text, ["tool_result blocks only"]),
        (in_results_order, ["results in call order"]),
        (no_is_error, ["is_error passed through"]),
        (
            first_only,
            [
                "one result per tool_use, ids paired",
                "results in call order",
                "is_error passed through",
                "the tool output is the content",
                "the API accepts the next request",
            ],
        ),
    ],
)
def test_each_message_mistake_fails_its_own_check(fn: Any, fails: list[str]) -> None:
    assert failed(check_tool_results_message(fn)) == fails


def test_message_hints_name_the_problem() -> None:
    card = check_tool_results_message(first_only)
    assert hint(card, "one result").startswith("no result for toolu_")
    assert hint(card, "the API").startswith(
        "the API answered 400: messages.1: `tool_use` ids were found without `tool_result` "
        "blocks immediately after: toolu_"
    )
    assert hint(check_tool_results_message(split_messages), "one user") == (
        "the results came in 3 user messages: split results teach the model to stop making "
        "parallel calls"
    )


# -- check_close_dangling ---------------------------------------------------------------------

DANGLING_CHECKS = [
    "answers every dangling tool_use",
    "one user message right after, in call order",
    'each result has "is_error": True and a reason',
    "earlier messages untouched",
    "a complete history comes back unchanged",
    "running it twice changes nothing more",
    "the API accepts the closed history",
]


@pytest.mark.parametrize("fn", [close_dangling, looplab.close_dangling])
def test_reference_close_dangling_passes(fn: Any) -> None:
    card = check_close_dangling(fn)
    assert [c.name for c in card] == DANGLING_CHECKS
    assert card.passed, str(card)


def test_stub_fails_every_dangling_check() -> None:
    card = check_close_dangling(stub)
    assert failed(card) == DANGLING_CHECKS and {c.hint for c in card} == {STUB_HINT}


def always_appends(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    calls = [b for b in messages[last]["content"] if b["type"] == "tool_use"]
    if not calls:
        return messages
    results = [{"type": "tool_result", "tool_use_id": b["id"], "content": "not run",
                "is_error": True} for b in calls]  # fmt: skip
    return [*messages, {"role": "user", "content": results}]


def without_is_error(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    closed = close_dangling(copy.deepcopy(messages))
    for block in closed[-1]["content"]:
        if messages[-1]["role"] == "assistant":
            block.pop("is_error", None)
    return closed


@pytest.mark.parametrize(
    ("fn", "fails"),
    [
        (always_appends, ["running it twice changes nothing more"]),
        (without_is_error, ['each result has "is_error": True and a reason']),
    ],
)
def test_each_dangling_mistake_fails_its_own_check(fn: Any, fails: list[str]) -> None:
    assert failed(check_close_dangling(fn)) == fails


def canned(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """No answer at all: the closed history for the inputs the checker once always sent
    (toolu_02 and toolu_03 dangling), anything else unchanged."""
    last = messages[-1]
    ids = [b.get("id") for b in last["content"]] if last["role"] == "assistant" else []
    if ids[-2:] != ["toolu_02", "toolu_03"]:
        return messages
    results = [{"type": "tool_result", "tool_use_id": i, "content": "not run",
                "is_error": True} for i in ("toolu_02", "toolu_03")]  # fmt: skip
    return [*messages, {"role": "user", "content": results}]


def test_answers_canned_for_fixed_inputs_fail_on_the_drawn_ones() -> None:
    card = check_close_dangling(canned)
    assert "answers every dangling tool_use" in failed(card)
    assert not card.passed


def test_each_check_draws_new_histories() -> None:
    from looplab.exercises.dangling import _histories

    seen = {repr(_histories()[0]) for _ in range(5)}
    assert len(seen) == 5


# -- check_token_formula ----------------------------------------------------------------------


def test_reference_formula_passes() -> None:
    card = check_token_formula(cumulative_input)
    assert card.passed and len(card) == 6
    assert check_token_formula(looplab.tokens.cumulative_input).passed


def test_linear_growth_fails_and_the_hint_does_not_give_the_formula() -> None:
    card = check_token_formula(lambda n, S, delta: n * (S + delta))
    assert failed(card) == [
        "one turn sends S",
        "the article: 10 turns send 17,500",
        "the article: 20 turns send 65,000",
        "matches adding S + (n-1)Δ turn by turn",
    ]
    assert hint(card, "the article: 10") == "got 7000 for fn(10, 400, 300), expected 17,500"
    assert "N(N-1)" not in str(card)


def test_a_formula_tuned_to_the_articles_numbers_is_caught() -> None:
    known = {(1, 400, 300): 400, (0, 400, 300): 0, (10, 400, 300): 17_500,
             (20, 400, 300): 65_000, (7, 400, 0): 2_800}  # fmt: skip
    card = check_token_formula(lambda n, S, d: known.get((n, S, d), 0))
    assert failed(card) == ["matches adding S + (n-1)Δ turn by turn"]


def test_stub_fails_every_formula_check() -> None:
    card = check_token_formula(stub)
    assert len(failed(card)) == 6 and {c.hint for c in card} == {STUB_HINT}


def test_a_loop_that_never_checks_stop_reason_is_told_where_it_overran() -> None:
    def never_stops(client: Any, task: str, *, tools: list[looplab.Tool], **kw: Any) -> Any:
        impls = {t.name: t for t in tools}
        messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
        while True:
            response = client.messages.create(model=MODEL, max_tokens=1024, messages=messages,
                                              tools=[t.definition() for t in tools])  # fmt: skip
            messages.append({"role": "assistant", "content": response.content})
            calls = [b for b in response.content if b.type == "tool_use"]
            results = [{"type": "tool_result", "tool_use_id": b.id,
                        "content": impls[b.name](**b.input)} for b in calls]  # fmt: skip
            messages.append({"role": "user", "content": results or "Go on."})

    card = check_agent_loop(never_stops)
    assert hint(card, "done") == (
        "the loop sent request 3 after the scenario's last reply; it should have returned "
        "'done' before"
    )
    assert hint(card, "repeated") == (
        "the loop sent request 6 after the scenario's last reply; it should have returned "
        "'stopped: repeated <tool name>' before"
    )


def test_scorecard_html_shows_hints_only_on_failed_checks() -> None:
    card = Scorecard("t", [Check("ok", True, "advice for a failure"), Check("bad", False, "fix")])
    page = card._repr_html_()
    assert "advice for a failure" not in page and ">fix</td>" in page
