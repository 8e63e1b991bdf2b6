"""The checkers of lessons 01, 03, 06 and 07: a right answer passes, each typical mistake fails
the check that names it, and a stub of any checker is one line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from scorecards import failed, hint, stub

import looplab
from looplab import ToolError, tokens
from looplab.exercises import (
    Scorecard,
    check_answer,
    check_next_action,
    check_next_reply,
    check_run_tool,
    check_token_budget,
    check_token_gate,
)


@pytest.mark.parametrize(
    "checker",
    [check_answer, check_next_action, check_token_budget, check_run_tool, check_token_gate,
     check_next_reply],
)  # fmt: skip
def test_a_stub_is_one_line_not_written_yet(checker: Callable[[Any], Scorecard]) -> None:
    card = checker(stub)
    assert not card.passed and len(card) > 1
    assert str(card).splitlines()[1:] == ["✗ not written yet: write it"]


# -- 01 check_answer ------------------------------------------------------------------------


def answer(response: Any, tools: Any) -> dict[str, Any]:
    block = next(b for b in response.content if b.type == "tool_use")
    result = {"type": "tool_result", "tool_use_id": block.id,
              "content": tools[block.name](**block.input)}  # fmt: skip
    return {"role": "user", "content": [result]}


def made_up_id(response: Any, tools: Any) -> dict[str, Any]:
    message = answer(response, tools)
    message["content"][0]["tool_use_id"] = "toolu_01"
    return message


def runs_twice(response: Any, tools: Any) -> dict[str, Any]:
    block = next(b for b in response.content if b.type == "tool_use")
    tools[block.name](**block.input)
    return answer(response, tools)


def tool_role(response: Any, tools: Any) -> dict[str, Any]:
    return {**answer(response, tools), "role": "tool"}


def test_answer_passes_and_each_mistake_fails_its_check() -> None:
    assert check_answer(answer).passed, str(check_answer(answer))
    card = check_answer(made_up_id)
    assert failed(card) == ["tool_use_id copied from the call", "the API accepts the next request"]
    assert hint(card, "tool_use_id") == (
        "tool_use_id 'toolu_01' is not the id of the call in this response")
    assert failed(check_answer(runs_twice)) == ["the tool ran once; its output is the content"]
    assert hint(check_answer(runs_twice), "the tool") == "run_tests ran 2 times"
    assert failed(check_answer(tool_role)) == ["one user message",
                                               "the API accepts the next request"]  # fmt: skip


# -- 03 check_next_action ---------------------------------------------------------------------


def next_action(stop_reason: str) -> str:
    actions = {"end_turn": "done", "tool_use": "run_tools", "pause_turn": "resume",
               "compaction": "resume"}  # fmt: skip
    return actions.get(stop_reason, "stop")


def test_next_action_passes_every_value_and_hints_without_the_answer() -> None:
    assert check_next_action(next_action).passed
    card = check_next_action(lambda s: "done" if s != "tool_use" else "run_tools")
    assert "end_turn" not in failed(card) and "max_tokens" in failed(card)
    assert hint(card, "max_tokens") == "got 'done', but the reply was cut off at the request's " \
                                       "max_tokens"  # fmt: skip
    assert all("stop" not in c.name for c in card if c.name != "stop_sequence")
    unknown = check_next_action(lambda s: looplab.STOP_REASONS[s])  # KeyError on a new value
    assert failed(unknown) == ["some_future_reason"]
    assert re.fullmatch(r"KeyError: '\w+_[0-9a-f]{6}_reason'", hint(unknown, "some_future"))
    assert hint(check_next_action(lambda s: looplab.STOP_REASONS[s]), "some_future") != hint(
        unknown, "some_future")  # drawn afresh: a table of the checker's values cannot answer


# -- 06 check_token_budget --------------------------------------------------------------------


def size_budget(turns: list[Any], n_turns: int) -> float:
    S, delta = tokens.fit(turns)
    return tokens.cumulative_input(n_turns, S, delta) + n_turns * max(
        t.output_tokens for t in turns)  # fmt: skip


def twice_the_tokens(turns: list[Any], n_turns: int) -> float:
    return n_turns / len(turns) * sum(t.total_input + t.output_tokens for t in turns)


def input_only(turns: list[Any], n_turns: int) -> float:
    return tokens.cumulative_input(n_turns, *tokens.fit(turns))


def squared(turns: list[Any], n_turns: int) -> float:
    return (n_turns / len(turns)) ** 2 * sum(t.total_input + t.output_tokens for t in turns)


def test_token_budget_passes_a_fitted_budget_and_fails_each_guess() -> None:
    assert check_token_budget(size_budget).passed, str(check_token_budget(size_budget))
    short = check_token_budget(twice_the_tokens)
    assert len(failed(short)) == 3
    assert hint(short, "the article's").startswith("the run stopped at turn 15 of 20")
    no_output = check_token_budget(input_only)
    assert len(failed(no_output)) == 3
    assert hint(no_output, "the article's") == (
        "the budget covers 99% of the tokens the 20-turn run used (input and output)")
    loose = check_token_budget(squared)
    # (the last task's S and delta are drawn at each run, so whether it fits varies)
    assert failed(loose)[0] == (
        "a long system prompt, small turns: 5 turns measured, a budget for 20")
    assert "the article's numbers: 10 turns measured, a budget for 20" not in failed(loose)
    assert "68% of the budget was left unused" in hint(loose, "a long")
    assert "not a number" in hint(check_token_budget(lambda turns, n: "lots"), "the article's")


# -- 07 check_run_tool ------------------------------------------------------------------------


def run_tool(block: Any, tools: Any, *, validate: bool = True) -> dict[str, Any]:
    answer = {"type": "tool_result", "tool_use_id": block.id}
    t = tools.get(block.name)
    if t is None:
        return {**answer, "is_error": True,
                "content": f"unknown tool {block.name!r}. Tools: {', '.join(tools)}"}
    try:
        if validate:
            jsonschema.validate(block.input, t.input_schema)
    except jsonschema.ValidationError as e:
        return {**answer, "is_error": True, "content": f"invalid input: {e.message}"}
    try:
        output = t(**block.input)
    except ToolError as e:
        return {**answer, "is_error": True, "content": e.content}
    except Exception as e:
        return {**answer, "is_error": True, "content": f"{type(e).__name__}: {e}"}
    return {**answer, "content": output if isinstance(output, str) else str(output)}  # fmt: skip


def reraises_tool_error(block: Any, tools: Any) -> dict[str, Any]:
    if block.input.get("path", "").startswith(".."):
        tools[block.name](**block.input)
    return run_tool(block, tools)


def repr_of_errors(block: Any, tools: Any) -> dict[str, Any]:
    result = run_tool(block, tools)
    if block.name == "parse_version" and block.input.get("text") == "2.x":
        result["content"] = "ValueError(\"invalid literal for int() with base 10: 'x'\")"
    return result


def test_run_tool_passes_and_each_mistake_fails_its_check() -> None:
    assert check_run_tool(run_tool).passed, str(check_run_tool(run_tool))
    card = check_run_tool(lambda b, t: run_tool(b, t, validate=False))
    assert failed(card) == ["input that does not fit input_schema: refused before the tool runs"]
    assert hint(card, "input that") == (
        "parse_version's code ran with text=2.1, a number where its input_schema asks for a "
        "string")
    raises = check_run_tool(reraises_tool_error)
    assert failed(raises)[0] == "never raises"
    assert "ToolError" in hint(raises, "never raises") and "read_file" in hint(raises, "never")
    assert failed(check_run_tool(repr_of_errors)) == [
        "an exception from the tool's code: its type and message, marked as an error"]
