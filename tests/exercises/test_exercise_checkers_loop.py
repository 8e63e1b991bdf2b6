"""The checkers of lessons 08-10 and the article's loop: a right answer passes, and each
typical mistake fails the check that names it.
"""

from __future__ import annotations

from typing import Any

from scorecards import failed, hint, stub

import looplab
from looplab import MODEL, FakeClock, Limits, ScriptedModel, call, fake_client
from looplab.exercises import (
    check_agent_loop,
    check_gate_test,
    check_next_reply,
    check_token_gate,
)
from looplab.lessons.article_loop import run_agent as article_run_agent

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
