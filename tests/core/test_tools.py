"""Tools: schemas from signatures, and calls that fail safely (never crashing the loop)."""

from __future__ import annotations

import threading
from typing import Any, Literal

import anthropic.lib.tools
import pytest

from looplab import Limits, ScriptedModel, Tool, ToolError, call, fake_client, run_agent, say, tool
from looplab.core.result import ToolCall
from looplab.core.tools import answer_calls, as_tools
from looplab.running.deadline import time_left

release = threading.Event()  # lets hung test tools finish once the test is over


@pytest.fixture(autouse=True)
def _release_hung_tools() -> Any:
    release.clear()
    yield
    release.set()


@tool
def run_tests(module: str, verbose: bool = False) -> str:
    """Run the unit tests of one module and return pytest's output.

    Call it to check whether tests pass.

    Args:
        module: the module's name, e.g. login
    """
    return f"{module}: 3 passed"


def test_tool_takes_name_description_and_schema_from_the_function() -> None:
    assert isinstance(run_tests, Tool)
    assert run_tests.definition() == {
        "name": "run_tests",
        "description": "Run the unit tests of one module and return pytest's output.\n\n"
                       "Call it to check whether tests pass.",
        "input_schema": {
            "additionalProperties": False,
            "type": "object",
            "required": ["module"],
            "properties": {
                "module": {"description": "the module's name, e.g. login", "title": "Module",
                           "type": "string"},
                "verbose": {"default": False, "title": "Verbose", "type": "boolean"},
            },
        },
    }
    assert run_tests(module="x") == "x: 3 passed"  # still callable as a function


def test_tool_options_and_literal_types() -> None:
    @tool(name="pick", timeout_s=5)
    def choose(kind: Literal["a", "b"]) -> str:
        """Pick one."""
        return kind

    assert (choose.name, choose.timeout_s) == ("pick", 5)
    assert choose.input_schema["properties"]["kind"]["enum"] == ["a", "b"]


def test_tool_rejects_functions_the_model_cannot_call() -> None:
    def spread(*parts: str) -> str:
        return "".join(parts)

    with pytest.raises(TypeError, match=r"cannot make a tool from 'spread': parts cannot be "
                       "passed by name. A tool takes named arguments only"):
        tool(spread)


def one(name: str, tools: list[Any], timeout_s: float | None = 5, **input: Any) -> ToolCall:
    [c] = answer_calls([ToolCall("toolu_1", name, input)], as_tools(tools)[0], timeout_s=timeout_s)
    return c


def test_input_that_fails_the_schema_says_what_and_how_to_fix_it() -> None:
    c = one("run_tests", [run_tests], modul="login", verbose="yes")
    schema = (
        '{"additionalProperties": false, "properties": {"module": {"description": "the '
        'module\'s name, e.g. login", "title": "Module", "type": "string"}, "verbose": '
        '{"default": false, "title": "Verbose", "type": "boolean"}}, "required": ["module"], '
        '"type": "object"}'
    )
    assert c.is_error and c.outcome == "not_run"
    assert c.result == (
        "invalid input for run_tests:\n"
        "- Additional properties are not allowed ('modul' was unexpected)\n"
        "- 'module' is a required property\n"
        "- verbose: 'yes' is not of type 'boolean'\n"
        f"Call run_tests again with input that matches its input_schema: {schema}"
    )


def test_unknown_tool_lists_the_available_ones() -> None:
    c = one("run_test", [run_tests, say_hi])
    assert (c.is_error, c.outcome) == (True, "not_run")
    assert c.result == ("unknown tool 'run_test'. Available tools: run_tests, say_hi. "
                        "Call one of these.")


@tool
def say_hi(name: str) -> str:
    """Greet."""
    return f"hi {name}"


def test_an_exception_becomes_type_and_message() -> None:
    def divide(a: int, b: int) -> float:
        """Divide."""
        return a / b

    c = one("divide", [divide], a=1, b=0)
    assert (c.result, c.is_error, c.outcome) == ("ZeroDivisionError: division by zero", True,
                                                  "ran")


def test_tool_error_chooses_its_own_text_and_the_sdk_one_works_too() -> None:
    def ours(x: str) -> str:
        """Fail nicely."""
        raise ToolError("no such module 'logn'; modules with tests: login")

    def sdks(x: str) -> str:
        """Fail with the SDK's ToolError."""
        raise anthropic.lib.tools.ToolError([{"type": "text", "text": "blocked"}])

    assert one("ours", [ours], x="a").result == "no such module 'logn'; modules with tests: login"
    c = one("sdks", [sdks], x="a")
    assert (c.result, c.is_error) == ([{"type": "text", "text": "blocked"}], True)


def test_return_values_become_tool_result_content() -> None:
    def data(x: int) -> Any:
        """Return data."""
        return {"x": x, "ok": True} if x else [{"type": "text", "text": "block"}]

    assert one("data", [data], x=1).result == '{"x": 1, "ok": true}'
    assert one("data", [data], x=0).result == [{"type": "text", "text": "block"}]


def test_async_tools_are_awaited() -> None:
    async def fetch(url: str) -> str:
        """Fetch."""
        return f"got {url}"

    assert one("fetch", [fetch], url="u").result == "got u"


def test_a_default_tool_runs_in_the_loops_own_thread() -> None:
    """As in the article: `breakpoint()` in a tool stops in the thread that runs the loop."""
    where: list[threading.Thread] = []

    def here() -> str:
        """Say where the call ran."""
        where.append(threading.current_thread())
        return "ok"

    model = ScriptedModel([[call("here"), call("here")], say("done")])
    before = set(threading.enumerate())
    result = run_agent(fake_client(model), "t", tools=[here], limits=Limits(max_repeats=None))
    assert str(result) == "done"
    assert where == [threading.current_thread()] * 2
    assert set(threading.enumerate()) == before  # no thread was started, none is left


def test_a_tool_with_a_timeout_runs_in_a_thread_of_its_own_that_ends() -> None:
    where: list[threading.Thread] = []

    @tool(timeout_s=5)
    def timed() -> str:
        """Say where the call ran."""
        where.append(threading.current_thread())
        return "ok"

    model = ScriptedModel([call("timed"), say("done")])
    result = run_agent(fake_client(model), "t", tools=[timed])
    assert str(result) == "done" and result.turns[0].tool_calls[0].result == "ok"
    assert where[0] is not threading.current_thread() and not where[0].is_alive()


def test_one_failing_parallel_call_does_not_lose_the_others() -> None:
    def fail(x: int) -> str:
        """Fail on 1."""
        if x == 1:
            raise ValueError("bad x")
        return f"ok {x}"

    model = ScriptedModel([[call("fail", x=0), call("fail", x=1), call("fail", x=2)],
                           say("done")])
    result = run_agent(fake_client(model), "t", tools=[fail])
    assert [(b["content"], b.get("is_error", False)) for b in result.messages[2]["content"]] == [
        ("ok 0", False), ("ValueError: bad x", True), ("ok 2", False)]


def test_a_python_tool_that_overruns_gets_a_timeout_result_and_the_loop_goes_on() -> None:
    def hang(x: int) -> str:
        """Never answers in time."""
        release.wait(30)
        return "late"

    def quick(x: int) -> str:
        """Answers at once."""
        return "quick"

    model = ScriptedModel([[call("hang", x=1), call("quick", x=1)], say("done")])
    result = run_agent(fake_client(model), "t", tools=[hang, quick],
                       limits=Limits(tool_timeout_s=0.05))
    assert str(result) == "done"
    timed_out, fine = result.turns[0].tool_calls
    assert (timed_out.result, timed_out.is_error, timed_out.duration_s) == (
        "timed out after 0.05 s. Try a smaller or different call.", True, 0.05)
    assert (fine.result, fine.is_error) == ("quick", False)
    release.set()  # the thread now returns; its late result must not replace the timeout
    assert timed_out.result.startswith("timed out")


def test_a_tool_timeout_overrides_the_run_limit() -> None:
    @tool(timeout_s=0.05)
    def hang(x: int) -> str:
        """Hang."""
        release.wait(30)
        return "late"

    c = one("hang", [hang], timeout_s=None, x=1)
    assert c.result == "timed out after 0.05 s. Try a smaller or different call."


def test_time_left_tells_a_tool_its_remaining_time() -> None:
    seen: list[float | None] = []

    def probe(x: int) -> str:
        """Report."""
        seen.append(time_left())
        return "ok"

    one("probe", [probe], timeout_s=10, x=1)
    one("probe", [probe], timeout_s=None, x=1)
    assert seen[0] is not None and 0 < seen[0] <= 10 and seen[1] is None
    assert time_left() is None  # outside a tool call


def test_a_broken_hand_written_schema_is_an_error_result_not_a_crash() -> None:
    broken = Tool("broken", "d", {"type": "object", "properties": {"a": {"type": 12}}},
                  fn=lambda a: a)
    c = one("broken", [broken], a=1)
    assert c.is_error and c.result.startswith("cannot check the input of broken: ")


def test_a_hand_written_tool_with_its_own_schema() -> None:
    add = Tool("add", "Add two numbers.", {"type": "object", "required": ["a", "b"],
               "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
               fn=lambda a, b: str(a + b))
    assert one("add", [add], a=1, b=2.5).result == "3.5"
    assert one("add", [add], a=1).result.startswith("invalid input for add:\n- 'b' is a required")


def test_sdk_beta_tools_run_in_the_loop_like_looplab_tools() -> None:
    @anthropic.beta_tool
    def shout(text: str) -> str:
        """Repeat the text in capitals."""
        return text.upper()

    model = ScriptedModel([call("shout", text="hi"), say("done")])
    result = run_agent(fake_client(model), "shout hi", tools=[shout])
    assert str(result) == "done"
    assert model.requests[0]["tools"][0]["name"] == "shout"
    assert result.turns[0].tool_calls[0].result == "HI"
