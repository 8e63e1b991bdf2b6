"""The checkers of lessons 01, 03, 06–10: a right answer passes, each typical mistake fails
the check that names it, and a stub is one line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

import looplab
from looplab import MODEL, FakeClock, Limits, ScriptedModel, ToolError, call, fake_client, tokens
from looplab.lessons.article_loop import run_agent as article_run_agent
from looplab.lessons.exercises import (
    Scorecard,
    check_agent_loop,
    check_answer,
    check_gate_test,
    check_next_action,
    check_next_reply,
    check_run_tool,
    check_token_budget,
    check_token_gate,
)


def stub(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("write it")


def failed(card: Scorecard) -> list[str]:
    return [c.name for c in card if not c.passed]


def hint(card: Scorecard, name_start: str) -> str:
    return next(c.hint for c in card if c.name.startswith(name_start))


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
    assert hint(unknown, "some_future") == "KeyError: 'some_future_reason'"


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
    assert failed(loose) == ["a long system prompt, small turns: 5 turns measured, a budget for 20"]
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


# -- 08 check_gate_test -----------------------------------------------------------------------

RAN: list[str] = []


@looplab.tool
def run_tests(module: str) -> str:
    """Run the tests of one module."""
    RAN.append(module)
    return "1 failed, 2 passed"


def agent(client: Any, *, clock: Any = None, **limits: Any) -> looplab.RunResult:
    RAN.clear()
    return looplab.run_agent(client, "task", tools=[run_tests], limits=Limits(**limits),
                             **({"clock": clock} if clock else {}))  # fmt: skip


def exact_test(agent: Any) -> None:
    same = call("run_tests", module="login")
    model = ScriptedModel([same, same, same, same, "done"])
    result = agent(fake_client(model))
    assert RAN == ["login", "login"]
    assert result.status == "repeated_call" and len(model.requests) == 4


def loose_test(agent: Any) -> None:  # only "it stopped somehow": cannot see a late gate
    same = call("run_tests", module="login")
    assert agent(fake_client(ScriptedModel([same] * 8))).status == "repeated_call"


def test_gate_test_checker_tells_a_test_that_can_fail_from_one_that_cannot() -> None:
    assert check_gate_test(exact_test, agent).passed
    card = check_gate_test(loose_test, agent)
    assert failed(card) == ["fails against a gate one call late"]
    assert hint(card, "fails against a gate") == "it passed, so it cannot catch this bug"
    wrong = check_gate_test(lambda a: exact_test(lambda c, **kw: a(c, max_repeats=2)), agent)
    assert failed(wrong)[0] == "passes against the agent"
    assert str(check_gate_test(stub, agent)).splitlines()[1] == "✗ not written yet: write it"


# -- 09 check_token_gate ----------------------------------------------------------------------


def token_gate(runner: Any, budget: int, *, cache: bool = True) -> tuple[str, int]:
    used = 0
    for message in runner:
        u = message.usage
        used += u.input_tokens + u.output_tokens
        if cache:
            used += (u.cache_creation_input_tokens or 0) + (u.cache_read_input_tokens or 0)
        if message.stop_reason != "tool_use":
            return ("done" if message.stop_reason == "end_turn"
                    else f"stopped: {message.stop_reason}"), used  # fmt: skip
        if used >= budget:
            return "stopped: token_budget", used
    return "stopped: max_iterations", used


def test_token_gate_passes_and_a_gate_blind_to_the_cache_fails() -> None:
    assert check_token_gate(token_gate).passed
    card = check_token_gate(lambda r, b: token_gate(r, b, cache=False))
    assert failed(card) == ["budget 300 at 100 a turn: stops after reply 3, no 4th request",
                            "budget 301: one token more allows one request more"]
    assert hint(card, "budget 300") == "got status 'done' after 6 requests, counting 288 tokens"


def test_token_gate_fails_a_gate_that_adds_none() -> None:
    def adds_none(runner: Any, budget: int) -> tuple[str, int]:
        used = 0
        for message in runner:
            u = message.usage
            used += (u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens
                     + u.output_tokens)  # fmt: skip
            if message.stop_reason == "end_turn" or used >= budget:
                return ("done" if message.stop_reason == "end_turn"
                        else "stopped: token_budget"), used  # fmt: skip
        return "stopped: max_iterations", used

    card = check_token_gate(adds_none)
    assert failed(card) == ["a run that ends under budget is done (None cache fields count 0)"]
    assert hint(card, "a run").startswith("TypeError: unsupported operand")


# -- 10 check_next_reply ----------------------------------------------------------------------


def next_reply(client: Any, messages: list[Any], *, tools: Any, max_tokens: int = 1024,
               max_tokens_cap: int = 8192, grow: bool = True, keep_cut: bool = False) -> Any:
    while True:
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools,
                                          messages=messages)  # fmt: skip
        if response.stop_reason == "max_tokens" and not keep_cut:
            if max_tokens >= max_tokens_cap:
                return response
            max_tokens = min(2 * max_tokens, max_tokens_cap) if grow else max_tokens
            continue
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "pause_turn":
            return response


def test_next_reply_passes_and_each_mistake_fails_its_check() -> None:
    assert check_next_reply(next_reply).passed, str(check_next_reply(next_reply))
    same_room = check_next_reply(lambda *a, **k: next_reply(*a, **k, grow=False))
    assert "max_tokens: the same messages again" in failed(same_room)[0]
    assert hint(same_room, "max_tokens: the same").startswith(
        "max_tokens went [1,024, 1,024, 1,024, 1,024, 1,024, …]")
    kept = check_next_reply(lambda *a, **k: next_reply(*a, **k, keep_cut=True))
    assert failed(kept) == [
        "max_tokens: the same messages again, with more room; the cut reply not kept",
        "max_tokens at the cap: returned, not kept, no request above the cap"]


def resumes_with_a_user_message(client: Any, messages: list[Any], **kw: Any) -> Any:
    response = next_reply(client, messages, **kw)
    while response.stop_reason == "pause_turn":
        messages.append({"role": "user", "content": "Go on."})
        response = next_reply(client, messages, **kw)
    return response


def test_next_reply_rejects_a_paused_turn_answered_with_a_user_message() -> None:
    def one_step(client: Any, messages: list[Any], **kw: Any) -> Any:
        response = client.messages.create(model=MODEL, max_tokens=kw["max_tokens"],
                                          tools=kw["tools"], messages=messages)  # fmt: skip
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason == "pause_turn":
            messages.append({"role": "user", "content": "Go on."})
            return one_step(client, messages, **kw)
        return response

    card = check_next_reply(one_step)
    assert hint(card, "pause_turn") == (
        "request 2 did not end with the paused reply, or did not carry the same tools")


# -- the article's loop, for lesson 08 --------------------------------------------------------


def test_the_articles_loop_fails_only_where_the_article_does() -> None:
    assert failed(check_agent_loop(article_run_agent)) == ["token_budget: cache tokens count too"]
    clock = FakeClock()
    model = ScriptedModel([call("run_tests", module="login")] * 3 + ["done"])
    status, messages = article_run_agent(fake_client(model, clock=clock), "task",
                                         tools=[run_tests], clock=clock)  # fmt: skip
    assert status == "stopped: repeated run_tests" and len(model.requests) == 3
    assert [v.rule for v in looplab.check_history(messages)] == ["tool_result_missing"]
