"""Whatever a tool raises or returns, the run ends, and its history can be sent again.

Each test runs a scripted model through the real SDK: the tool's result must come back to
the model (the fake API checks the history of every request, and `check_history` checks
the final one), and `run_agent` must return.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from looplab import Limits, ScriptedModel, call, check_history, fake_client, run_agent, say, tool
from looplab.fake.validate import check_request
from looplab.running.output import MAX_BLOCK_CHARS, MAX_CHARS, MAX_DEPTH, to_content

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
    # Ctrl-C means stop: the calls after it are answered, not run
    assert [c.outcome for c in result.turns[0].tool_calls] == ["interrupted", "not_run"]
    assert check_history(result.messages) == []
    answers = result.messages[-1]["content"]
    assert [a.get("is_error", False) for a in answers] == [True, True]
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


def run_one_returning(value: Any) -> Any:
    @tool
    def produce() -> Any:
        """Produce."""
        return value

    return run_one(produce)


def image(data: str = "iVBORw0KGgo=", media_type: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


@pytest.mark.parametrize("blocks", [
    [{"type": "text"}],
    [{"type": "text", "text": ""}],
    [{"type": "text", "text": " \n"}],
    [{"type": "text", "text": 42}],
    [{"type": "banana"}],
    [{"type": "text", "text": "ok"}, {"type": "banana"}],
    [{"type": "text", "text": "ok", "colour": "red"}],
    [image(data="this is not base64!")],
    [image(data="")],
    [image(media_type="image/bmp")],
    [{"type": "search_result", "source": "s", "title": "t", "content": [{"type": "text"}]}],
], ids=["text-missing", "text-empty", "text-blank", "text-not-str", "unknown-type",
        "one-of-two-unknown", "unknown-key", "not-base64", "no-image-data", "media-type",
        "nested-text-missing"])
def test_a_malformed_block_list_is_sent_as_json_text_and_the_run_ends_done(
    blocks: list[Any]
) -> None:
    assert to_content(blocks) == json.dumps(blocks)
    result, sent = run_one_returning(blocks)
    assert (result.status, result.turns[-1].stop_reason) == ("done", "end_turn")
    assert (sent["content"], sent.get("is_error", False)) == (json.dumps(blocks), False)


def test_valid_blocks_of_every_kind_are_sent_as_blocks() -> None:
    blocks = [
        {"type": "text", "text": "two files", "cache_control": {"type": "ephemeral"}},
        image(),
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}},
        {"type": "search_result", "source": "https://example.com", "title": "Example",
         "content": [{"type": "text", "text": "An example."}]},
    ]
    _, sent = run_one_returning(blocks)
    assert sent["content"] == blocks


def _sized(form: str, n: int) -> Any:
    """A value whose text, sent, has exactly `n` characters."""
    if form == "str":
        return "x" * n
    if form == "bytes":
        return b"x" * n
    if form == "json":
        return ["x" * (n - 4)]  # ["xx...x"]
    return [{"type": "text", "text": "x" * (n - 1)}, {"type": "text", "text": "y"}]


def _text(content: Any) -> str:
    """The text of `content` as the model reads it: a string, or the blocks' texts."""
    return content if isinstance(content, str) else "\n\n".join(b["text"] for b in content)


CUT_NOTE = (f"[looplab cut this output: it has {MAX_CHARS + 1:,} characters and only the first "
            f"{MAX_CHARS:,} are sent (1 cut). Make the tool return less (a summary, one page at "
            "a time), or write the output to a file and return the path.]")


@pytest.mark.parametrize("form", ["str", "bytes", "json", "blocks"])
def test_text_up_to_max_chars_is_sent_whole_and_one_more_is_cut_with_a_note(form: str) -> None:
    def as_text(value: Any) -> Any:  # what is sent when nothing is cut
        if form == "bytes":
            return value.decode()
        return json.dumps(value) if form == "json" else value

    at_bound = _sized(form, MAX_CHARS)
    assert to_content(at_bound) == as_text(at_bound)

    over = _sized(form, MAX_CHARS + 1)
    if form == "blocks":  # the texts share the cap: the second block is cut away
        assert to_content(over) == [{"type": "text", "text": "x" * MAX_CHARS},
                                    {"type": "text", "text": CUT_NOTE}]
    else:
        assert to_content(over) == f"{as_text(over)[:MAX_CHARS]}\n\n{CUT_NOTE}"


@pytest.mark.parametrize("form", ["str", "bytes", "json", "blocks"])
def test_a_40_mb_tool_output_is_cut_and_the_run_ends_done_not_api_error(form: str) -> None:
    result, sent = run_one_returning(_sized(form, 40_000_000))
    assert (result.status, result.turns[-1].stop_reason) == ("done", "end_turn")
    text = _text(sent["content"])
    assert len(text) < MAX_CHARS + 1_000 and "(39,900,000 cut)" in text


def test_an_image_over_the_block_cap_is_replaced_by_a_note_saying_so() -> None:
    data = "A" * MAX_BLOCK_CHARS  # valid base64; its block's JSON is a little longer
    result, sent = run_one_returning([{"type": "text", "text": "the chart:"}, image(data)])
    assert str(result) == "done"
    assert sent["content"][0] == {"type": "text", "text": "the chart:"}
    assert sent["content"][1]["text"].startswith("[looplab dropped this image block: its JSON "
                                                 "is 5,242,9")
    assert len(sent["content"]) == 2


_WORDS = st.sampled_from(["text", "image", "document", "search_result", "base64", "banana", "",
                          " ", "ok", "image/png", "image/bmp", "AA==", "not base64!"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text() | _WORDS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "text", "source", "data", "media_type", "content", "title"])
        | st.text(max_size=4), inner, max_size=4),
    max_leaves=16,
)
_TEXT = st.fixed_dictionaries(
    {"type": st.just("text"), "text": st.sampled_from(["ok", "", " \n"]) | st.text(max_size=4)},
    optional={"cache_control": st.just({"type": "ephemeral"}), "colour": st.just("red")},
)
_IMAGE = st.builds(image, st.sampled_from(["iVBORw0KGgo=", "AA==", "", "not base64!"]),
                   st.sampled_from(["image/png", "image/jpeg", "image/bmp"]))
_SEARCH = st.fixed_dictionaries({"type": st.just("search_result"), "source": _WORDS,
                                 "title": _WORDS, "content": st.lists(_TEXT, max_size=2)})
_ODD = st.fixed_dictionaries(
    {"type": _WORDS},
    optional={"text": st.text() | _WORDS | st.integers(), "title": _WORDS, "content": _JSON,
              "source": st.fixed_dictionaries({"type": _WORDS, "media_type": _WORDS,
                                               "data": _WORDS}) | _WORDS},
)
_BLOCK = _TEXT | _IMAGE | _SEARCH | _ODD


@pytest.mark.slow  # seconds
@settings(max_examples=300, deadline=None)
@given(st.lists(_BLOCK, min_size=1, max_size=3) | _JSON)
def test_whatever_json_a_tool_returns_the_fake_accepts_its_content(value: Any) -> None:
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": to_content(value)}
    messages = [
        {"role": "user", "content": "Use the tool."},
        {"role": "assistant", "content": [call("produce", id="toolu_1")]},
        {"role": "user", "content": [result]},
    ]
    assert [v for v in check_history(messages) if v.severity == "error"] == []
    check_request({"model": "claude-test", "max_tokens": 100, "messages": messages})
