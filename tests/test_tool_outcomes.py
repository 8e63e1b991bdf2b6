"""Whatever a tool raises or returns, the run ends, and its history can be sent again.

Each test runs a scripted model through the real SDK: the tool's result must come back to
the model (the fake API checks the history of every request, and `check_history` checks
the final one), and `run_agent` must return.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from looplab import Limits, ScriptedModel, call, check_history, fake_client, run_agent, say, tool
from looplab.core.tool_output import MAX_DEPTH, to_content

NO_TIMEOUT = Limits(tool_timeout_s=None)


def run_one(fn: Any, limits: Limits = NO_TIMEOUT) -> Any:
    """Run `fn` as the only tool of a two-turn script; return (result, the sent result)."""
    model = ScriptedModel([call(fn.name), say("I have read the result.")])
    result = run_agent(fake_client(model), "Use the tool.", tools=[fn], limits=limits)
    assert check_history(result.messages) == []
    return result, model.requests[-1]["messages"][-1]["content"][0] if model.requests[1:] else None


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


@pytest.mark.parametrize("raised, text", [
    (SystemExit(3), "SystemExit: 3"),
    (GeneratorExit(), "GeneratorExit"),
    (Unprintable(), "Unprintable: (its message could not be read)"),
])
def test_base_exceptions_and_broken_exceptions_become_error_results(
    raised: BaseException, text: str
) -> None:
    @tool
    def explode() -> str:
        """Fail."""
        raise raised

    result, sent = run_one(explode)
    assert str(result) == "done"
    assert sent == {"type": "tool_result", "tool_use_id": sent["tool_use_id"],
                    "content": text, "is_error": True}


def test_keyboard_interrupt_in_a_tool_ends_the_run_as_interrupted_and_resumable() -> None:
    @tool
    def interrupt() -> str:
        """Stop."""
        raise KeyboardInterrupt

    @tool
    def fine() -> str:
        """Work."""
        return "ok"

    model = ScriptedModel([[call("interrupt"), call("fine")], say("never sent")])
    result = run_agent(fake_client(model), "Go.", tools=[interrupt, fine], limits=NO_TIMEOUT)
    assert (result.status, len(model.requests)) == ("interrupted", 1)
    assert [c.outcome for c in result.turns[0].tool_calls] == ["interrupted", "ran"]
    assert check_history(result.messages) == []
    answers = result.messages[-1]["content"]
    assert [a["is_error"] if "is_error" in a else False for a in answers] == [True, False]
    # the history goes on as it is
    go_on = ScriptedModel([say("Carrying on.")])
    assert str(run_agent(fake_client(go_on), result.messages)) == "done"


def test_ctrl_c_while_waiting_for_the_model_ends_the_run_as_interrupted() -> None:
    class Interrupting:
        class messages:  # noqa: N801 (mimics client.messages)
            @staticmethod
            def create(**_: Any) -> Any:
                raise KeyboardInterrupt

    result = run_agent(Interrupting(), "Go.")  # type: ignore[arg-type]
    assert (result.status, result.messages) == (
        "interrupted", [{"role": "user", "content": "Go."}])


def test_a_coroutine_is_awaited_and_other_awaitables_are_reported() -> None:
    @tool
    def future() -> Any:
        """Return a future that no loop will ever complete."""
        return asyncio.Future(loop=asyncio.new_event_loop())

    result, sent = run_one(future, Limits(tool_timeout_s=30))
    assert sent["is_error"] and sent["content"].startswith(
        "the tool returned a Future, an awaitable that is not a coroutine")
    assert result.turns[0].tool_calls[0].duration_s < 30  # not reported as a timeout


async def _agen() -> Any:
    yield 1


@pytest.mark.parametrize("make, kind", [(lambda: (i for i in range(3)), "generator"),
                                        (lambda: iter([1, 2]), "list_iterator"),
                                        (_agen, "async_generator")])
def test_an_iterator_result_is_an_error_that_says_to_return_a_list(make: Any, kind: str) -> None:
    @tool
    def numbers() -> Any:
        """Count."""
        return make()

    _, sent = run_one(numbers)
    assert sent["is_error"] and sent["content"] == (
        f"the tool returned a {kind}, whose items were never produced; return a str or a "
        "list (e.g. list(...))")


@pytest.mark.parametrize("value, content, is_error", [
    ("plain", "plain", False),
    ("caf\udce9.txt", "caf\\udce9.txt", False),                    # a non-UTF-8 file name
    (b"caf\xe9", "caf\\xe9", False),
    ({"ratio": math.nan, "n": [1, math.inf]}, '{"ratio": "nan", "n": [1, "inf"]}', False),
    ([{"type": "text", "text": "a\udc80"}], [{"type": "text", "text": "a\\udc80"}], False),
    (10 ** 5000, "the tool returned an int of about 5,001 digits, too long to write; "
                 "return it as text", True),
], ids=["str", "surrogate", "bytes", "nan", "blocks", "huge-int"])
def test_every_return_value_becomes_content_the_api_takes(
    value: Any, content: Any, is_error: bool
) -> None:
    @tool
    def produce() -> Any:
        """Produce."""
        return value

    result, sent = run_one(produce)
    assert str(result) == "done"
    assert (sent["content"], sent.get("is_error", False)) == (content, is_error)


def test_output_nested_too_deep_is_an_error_result_not_a_crash() -> None:
    deep: Any = "bottom"
    for _ in range(5000):
        deep = [deep]

    @tool
    def dig() -> Any:
        """Dig."""
        return [{"type": "text", "text": "x", "extra": deep}]

    result, sent = run_one(dig)
    assert str(result) == "done" and sent["is_error"]
    assert sent["content"].startswith(f"the output is nested more than {MAX_DEPTH} levels")


def test_blank_text_from_the_model_is_not_kept_so_the_history_stays_valid() -> None:
    model = ScriptedModel([[say("   "), call("tick")], say("")])

    @tool
    def tick() -> str:
        """Tick."""
        return "tock"

    result = run_agent(fake_client(model), "Go.", tools=[tick])
    assert str(result) == "done"
    assert check_history(result.messages) == []
    assert [m["role"] for m in result.messages] == ["user", "assistant", "user"]
    assert [b["type"] for b in result.messages[1]["content"]] == ["tool_use"]


@pytest.mark.parametrize("text", [None, "", " \n"], ids=["None", "empty", "blank"])
def test_a_reply_with_no_text_leaves_a_history_that_can_go_on(text: Any) -> None:
    @tool
    def tick() -> str:
        """Tick."""
        return "tock"

    nothing = {"type": "text", "text": text}
    model = ScriptedModel([[nothing, call("tick")], [nothing]])
    result = run_agent(fake_client(model), "Go.", tools=[tick])
    assert str(result) == "done" and check_history(result.messages) == []
    assert [m["role"] for m in result.messages] == ["user", "assistant", "user"]
    go_on = ScriptedModel([say("Carrying on.")])
    assert str(run_agent(fake_client(go_on), result.messages, tools=[tick])) == "done"


def test_to_content_output_always_encodes_as_utf8_json() -> None:
    import json

    for value in ["\ud800", b"\xff\xfe", {"k\udcff": [math.nan]}, {1: None, (2, 3): "t"}]:
        json.dumps(to_content(value), allow_nan=False).encode("utf-8")
