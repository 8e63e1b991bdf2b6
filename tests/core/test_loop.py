"""The agent loop end to end through the real SDK and the fake API."""

from __future__ import annotations

import typing

import anthropic
import pytest
from anthropic.types import StopReason
from anthropic.types.beta import BetaStopReason

from looplab import (
    STATUSES,
    STOP_REASONS,
    AgentRun,
    Limits,
    ScriptedModel,
    Turn,
    call,
    check_history,
    close_dangling,
    fake_client,
    overloaded,
    refuse,
    reply,
    run_agent,
    say,
    think,
    tool,
    truncate,
)
from looplab.fake import pause, stop

ran: list[str] = []


@tool
def run_tests(module: str) -> str:
    """Run a module's unit tests."""
    ran.append(module)
    return "1 failed, 2 passed"


@tool
def read_file(path: str) -> str:
    """Read a file."""
    ran.append(path)
    return f"<content of {path}>"


TOOLS = [run_tests, read_file]


@pytest.fixture(autouse=True)
def _clear() -> None:
    ran.clear()


def errors(messages: list[dict[str, typing.Any]]) -> list[typing.Any]:
    return [v for v in check_history(messages) if v.severity == "error"]


def go(script: list[typing.Any], **kwargs: typing.Any) -> tuple[typing.Any, ScriptedModel]:
    model = ScriptedModel(script)
    kwargs.setdefault("tools", TOOLS)
    return run_agent(fake_client(model, max_retries=kwargs.pop("max_retries", 2)), "task",
                     **kwargs), model


ARTICLE = [
    [say("Run the login tests first."), call("run_tests", module="login")],
    [say("Read the log and the source."), call("read_file", path="logs/login.log"),
     call("read_file", path="login.py")],
    say("test_login_lockout fails: ..."),
]


def test_article_transcript_runs_to_done_with_the_article_history_shape() -> None:
    result, model = go(ARTICLE)
    assert str(result) == "done" and result.done
    m = result.messages
    assert [x["role"] for x in m] == ["user", "assistant", "user", "assistant", "user",
                                      "assistant"]
    first_call, log_call, src_call = (b for x in m for b in x["content"]
                                      if isinstance(b, dict) and b["type"] == "tool_use")
    assert m[2]["content"] == [{"type": "tool_result", "tool_use_id": first_call["id"],
                                "content": "1 failed, 2 passed"}]
    # the parallel call: both results in ONE user message, in call order, nothing else
    assert m[4]["content"] == [
        {"type": "tool_result", "tool_use_id": log_call["id"],
         "content": "<content of logs/login.log>"},
        {"type": "tool_result", "tool_use_id": src_call["id"], "content": "<content of login.py>"},
    ]
    # the two parallel calls run at the same time, so either may start first
    assert ran[0] == "login" and sorted(ran[1:]) == ["login.py", "logs/login.log"]
    # every request re-sends the whole history: 1, 3, 5 messages
    assert [len(r["messages"]) for r in model.requests] == [1, 3, 5]
    assert errors(result.messages) == []
    model.assert_complete()


def test_turns_record_usage_calls_and_cumulative_input() -> None:
    result, _ = go([
        reply(call("run_tests", module="login"),
              usage={"input_tokens": 400, "output_tokens": 20,
                     "cache_creation_input_tokens": 100, "cache_read_input_tokens": 0}),
        reply(say("done"), usage={"input_tokens": 50, "output_tokens": 5,
                                  "cache_creation_input_tokens": 0,
                                  "cache_read_input_tokens": 500}),
    ])
    t1, t2 = result.turns
    assert (t1.index, t1.messages_sent, t1.stop_reason) == (1, 1, "tool_use")
    assert (t1.input_tokens, t1.cache_creation_input_tokens, t1.total_input) == (400, 100, 500)
    assert (t2.cumulative_input, t2.total_input) == (1050, 550)
    assert result.usage == {"input_tokens": 450, "output_tokens": 25,
                            "cache_creation_input_tokens": 100, "cache_read_input_tokens": 500}
    [c] = t1.tool_calls
    assert (c.name, c.input, c.result, c.is_error, c.outcome) == (
        "run_tests", {"module": "login"}, "1 failed, 2 passed", False, "ran")
    assert t1.content == result.messages[1]["content"]
    assert t1.gates is not None and (t1.gates.turns, t1.gates.tokens_used) == (1, 520)


def test_thinking_blocks_go_back_unchanged_with_their_signature() -> None:
    # the fake answers 400 if the thinking block comes back edited or without signature
    result, _ = go([[think("Tests first."), call("run_tests", module="login")],
                    [think("Now answer."), say("ok")]])
    assert str(result) == "done"
    block = result.messages[1]["content"][0]
    assert block["type"] == "thinking" and block["thinking"] == "Tests first."
    assert block["signature"]


def test_stop_reason_table_covers_every_sdk_value() -> None:
    # A new StopReason value in the SDK fails here until it is classified in STOP_REASONS.
    known = set(typing.get_args(StopReason)) | set(typing.get_args(BetaStopReason))
    assert known <= set(STOP_REASONS), known - set(STOP_REASONS)
    assert set(STOP_REASONS.values()) == {"done", "run_tools", "resume", "stop"}
    for reason, action in STOP_REASONS.items():
        if action == "stop":
            assert reason in STATUSES
    assert [r for r, a in STOP_REASONS.items() if a == "done"] == ["end_turn"]


@pytest.mark.parametrize(
    "step, status",
    [
        (stop("stop_sequence", say("partial")), "stop_sequence"),
        (refuse(), "refusal"),
        (stop("model_context_window_exceeded", say("long...")), "model_context_window_exceeded"),
        (stop("some_future_reason", say("?")), "unknown_stop_reason"),
    ],
)
def test_terminal_stop_reasons_stop_and_are_never_done(step: typing.Any, status: str) -> None:
    result, model = go([step])
    assert result.status == status and not result.done
    assert str(result).startswith(f"stopped: {status}")
    assert len(model.requests) == 1


def test_unknown_stop_reason_is_named_in_the_result() -> None:
    result, _ = go([stop("some_future_reason", say("?"))])
    assert str(result) == "stopped: unknown_stop_reason (stop_reason 'some_future_reason')"


def test_truncated_tool_use_is_never_run_and_the_run_can_go_on() -> None:
    result, _ = go([truncate(say("Running"), call("run_tests", module="login"))])
    assert str(result) == "stopped: max_tokens"
    assert ran == []
    [turn] = result.turns
    assert [(c.name, c.outcome, c.result) for c in turn.tool_calls] == [
        ("run_tests", "pending", None)]  # never answered: the run stopped first
    assert errors(close_dangling(result.messages)) == []
    model = ScriptedModel([say("done")])
    again = run_agent(fake_client(model), result.messages, tools=TOOLS)
    assert str(again) == "done"
    assert model.requests[0]["messages"][2]["content"][0]["content"] == (
        "not run: the previous run stopped before this call was made")


@pytest.mark.parametrize("reason", ["pause_turn", "compaction"])
def test_resume_reasons_send_the_turn_back_unchanged(reason: str) -> None:
    web = {"type": "web_search_20250305", "name": "web_search"}
    first = pause(say("Searching")) if reason == "pause_turn" else stop("compaction", say("..."))
    result, model = go([first, say("found it")], tools=[*TOOLS, web])
    assert str(result) == "done"
    sent, resent = model.requests
    assert resent["messages"] == sent["messages"] + [result.messages[1]]
    assert result.messages[1]["content"] == result.turns[0].content
    assert result.turns[0].tool_calls == [] and ran == []


def test_api_error_after_retries_keeps_the_exception_and_the_messages() -> None:
    result, model = go([call("run_tests", module="login"), overloaded(), overloaded(),
                        overloaded()])
    assert result.status == "api_error"
    assert isinstance(result.error, anthropic.APIStatusError)
    assert result.error.status_code == 529
    assert str(result) == f"stopped: api_error (OverloadedError: {result.error})"
    assert len(model.requests) == 4  # one success, then 1 + 2 SDK retries
    assert [m["role"] for m in result.messages] == ["user", "assistant", "user"]
    assert errors(result.messages) == []
    again = run_agent(fake_client(ScriptedModel([say("done")])), result.messages, tools=TOOLS)
    assert str(again) == "done"


def test_agent_run_steps_one_request_at_a_time() -> None:
    model = ScriptedModel(ARTICLE)
    seen: list[Turn] = []
    run = AgentRun(fake_client(model), "task", tools=TOOLS, on_turn=seen.append)
    assert not run.finished and run.result is None
    t1 = run.step()
    assert t1 is not None and t1.index == 1 and len(model.requests) == 1
    assert not run.finished
    run.step()
    t3 = run.step()
    assert run.finished and run.result is not None and str(run.result) == "done"
    assert seen == run.turns and seen[-1] is t3
    with pytest.raises(RuntimeError, match="this run has finished"):
        run.step()


def test_run_agent_is_agent_run_stepped_to_the_end() -> None:
    a, _ = go(ARTICLE)
    run = AgentRun(fake_client(ScriptedModel(ARTICLE)), "task", tools=TOOLS)
    while not run.finished:
        run.step()
    assert run.result is not None
    assert run.result.messages == a.messages and run.result.status == a.status


def test_continuing_a_finished_run_passes_its_messages_back() -> None:
    first, _ = go(ARTICLE[:2], limits=Limits(max_turns=2))
    assert str(first) == "stopped: max_turns (2 of 2 turns used)"
    model = ScriptedModel([say("test_login_lockout fails")])
    second = run_agent(fake_client(model), first.messages, tools=TOOLS)
    assert str(second) == "done"
    assert model.requests[0]["messages"] == first.messages
    assert second.messages[:5] == first.messages


def test_request_carries_system_model_max_tokens_and_tool_definitions() -> None:
    _, model = go([say("hi")], system="Be brief.", model="claude-test", max_tokens=123)
    [body] = model.requests
    assert (body["system"], body["model"], body["max_tokens"]) == ("Be brief.", "claude-test",
                                                                    123)
    assert [t["name"] for t in body["tools"]] == ["run_tests", "read_file"]
    assert body["tools"][0] == {
        "name": "run_tests", "description": "Run a module's unit tests.",
        "input_schema": {"additionalProperties": False, "type": "object", "required": ["module"],
                         "properties": {"module": {"title": "Module", "type": "string"}}},
    }


def test_user_mistakes_raise_clear_errors() -> None:
    client = fake_client(ScriptedModel([]))
    with pytest.raises(TypeError, match="limits must be a looplab.Limits, got dict"):
        run_agent(client, "t", limits={"max_turns": 3})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="task_or_messages must be a task"):
        run_agent(client, 42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="tools must be a list"):
        run_agent(client, "t", tools=run_tests)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="two tools are named 'run_tests'"):
        run_agent(client, "t", tools=[run_tests, run_tests])
    with pytest.raises(ValueError, match=r"Limits\(max_turns=-1\): use a whole number >= 0"):
        Limits(max_turns=-1)
    with pytest.raises(ValueError, match=r"Limits\(on_repeat='block'\)"):
        Limits(on_repeat="block")  # type: ignore[arg-type]


def test_plain_functions_are_wrapped_as_tools() -> None:
    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    result, model = go([call("shout", text="hi"), say("HI")], tools=[shout])
    assert result.messages[2]["content"][0]["content"] == "HI"
    assert model.requests[0]["tools"][0]["description"] == "Upper-case the text."


def test_an_empty_reply_is_recorded_but_not_added_to_the_history() -> None:
    # an empty assistant message anywhere but last would make the next request a 400
    refused, _ = go([refuse()])
    assert refused.messages == [{"role": "user", "content": "task"}]
    assert refused.turns[0].content == [] and refused.turns[0].stop_reason == "refusal"
    empty, _ = go([call("run_tests", module="login"), reply()])
    assert str(empty) == "done" and [m["role"] for m in empty.messages] == [
        "user", "assistant", "user"]


# -- close_dangling -------------------------------------------------------------------------

ASKED = {"role": "assistant", "content": [
    {"type": "text", "text": "Two calls."},
    {"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": {"path": "a"}},
    {"type": "tool_use", "id": "toolu_b", "name": "read_file", "input": {"path": "b"}},
]}
TASK = {"role": "user", "content": "task"}


def not_run(tool_use_id: str, why: str = "stopped") -> dict[str, typing.Any]:
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": f"not run: {why}",
            "is_error": True}


def test_close_dangling_answers_every_call_of_the_last_turn_in_order() -> None:
    history = [TASK, ASKED]
    closed = close_dangling(history, reason="stopped")
    assert closed == [TASK, ASKED, {"role": "user", "content": [not_run("toolu_a"),
                                                                 not_run("toolu_b")]}]
    assert history == [TASK, ASKED]  # the input is not changed
    assert errors(history) != [] and errors(closed) == []
    assert close_dangling(closed, reason="again") == closed  # idempotent


def test_close_dangling_completes_a_partial_answer_and_puts_results_before_text() -> None:
    done = {"type": "tool_result", "tool_use_id": "toolu_b", "content": "b's text"}
    history = [TASK, ASKED, {"role": "user", "content": [done, {"type": "text", "text": "go on"}]}]
    closed = close_dangling(history, reason="stopped")
    assert closed[2]["content"] == [not_run("toolu_a"), done, {"type": "text", "text": "go on"}]
    assert errors(closed) == [] and history[2]["content"][0] is done
    text_only = close_dangling([TASK, ASKED, {"role": "user", "content": "go on"}], "stopped")
    assert text_only[2]["content"] == [not_run("toolu_a"), not_run("toolu_b"),
                                       {"type": "text", "text": "go on"}]


def test_close_dangling_leaves_valid_histories_alone() -> None:
    for history in ([TASK], [TASK, {"role": "assistant", "content": "hi"}],
                    [TASK, ASKED, {"role": "user", "content": [not_run("toolu_a"),
                                                               not_run("toolu_b")]}]):
        assert close_dangling(history) == history
