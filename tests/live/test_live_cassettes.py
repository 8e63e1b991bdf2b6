"""Record a run from the fake, replay it offline: same answers, and a clear word when the
loop sends something else. No test touches the network."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

import looplab
from looplab import (
    Cassette,
    FunctionModel,
    ReplayMismatch,
    ScriptedModel,
    call,
    fake_client,
    overloaded,
    record,
    replay,
    run_agent,
    say,
    think,
)
from looplab.fake.client import FAKE_API_KEY
from looplab.lessons.demo import TASK, demo_tools
from looplab.live import Exchange, Player, first_difference, to_script
from looplab.live.player import MISSING

FIXED = {"role": "user", "content": "hi"}


def script() -> ScriptedModel:
    """Thinking, a parallel call, an overloaded answer the SDK retries, then the answer."""
    return ScriptedModel([
        [think("Tests first."), say("Running the tests."), call("run_tests", module="login")],
        [say("Reading both."), call("read_file", path="logs/login.log"),
         call("read_file", path="login.py")],
        overloaded(),
        say("test_login_lockout fails: the counter never resets."),
    ])


def recorded_run(path: Path) -> looplab.RunResult:
    return run_agent(record(fake_client(script()), path), TASK, tools=demo_tools())


def test_record_then_replay_round_trips_a_run_exactly(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    live = recorded_run(path)
    cassette = Cassette.load(path)
    assert live.status == "done"
    assert [e.status for e in cassette.exchanges] == [200, 200, 529, 200]

    player = Player(cassette, "run.json")
    again = run_agent(player.client(), TASK, tools=demo_tools())
    player.assert_complete()
    assert again.messages == live.messages
    assert again.usage == live.usage
    assert [t.stop_reason for t in again.turns] == [t.stop_reason for t in live.turns]


def test_a_stream_replays_as_a_stream(tmp_path: Path) -> None:
    path = tmp_path / "stream.json"
    client = record(fake_client(ScriptedModel([say("a streamed answer, long enough to split")])),
                    path)
    with client.messages.stream(model=looplab.MODEL, max_tokens=64, messages=[FIXED]) as s:
        pieces = list(s.text_stream)
        first = s.get_final_message()
    assert Cassette.load(path).exchanges[0].headers["content-type"] == "text/event-stream"
    with replay(path).messages.stream(model=looplab.MODEL, max_tokens=64, messages=[FIXED]) as s:
        assert list(s.text_stream) == pieces and len(pieces) > 1
        assert s.get_final_message() == first


def test_the_file_is_json_lines_without_keys_or_request_headers(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    recorded_run(path)
    text = path.read_text(encoding="utf-8")
    header, first, second, *_ = (json.loads(line) for line in text.splitlines())
    assert header["format"] == "looplab-cassette/2" and header["live"] is False
    assert set(first["request"]) == {"method", "path", "body"}
    assert set(second["request"]) == {"method", "path", "extends", "body"}
    assert second["request"]["extends"] == {"messages": 1,
                                            "keys": ["max_tokens", "model", "tools"]}
    assert [m["role"] for m in second["request"]["body"]["messages"]] == ["assistant", "user"]
    assert set(first["response"]["headers"]) <= {"content-type", "request-id", "retry-after",
                                                 "retry-after-ms", "x-should-retry"}
    assert FAKE_API_KEY not in text and "authorization" not in text.lower()


def test_a_key_that_reaches_a_body_is_redacted(tmp_path: Path) -> None:
    path = tmp_path / "leak.json"
    client = record(fake_client(FunctionModel(lambda r: say(f"echo {r.last_user_text()}"))), path)
    message = {"role": "user", "content": f"my key is {FAKE_API_KEY}"}
    client.messages.create(model=looplab.MODEL, max_tokens=200, messages=[message])
    text = path.read_text(encoding="utf-8")
    assert FAKE_API_KEY not in text
    assert text.count("[redacted]") == 2  # the request and the echoed reply


def test_the_file_is_complete_after_every_exchange(tmp_path: Path) -> None:
    path = tmp_path / "partial.json"
    client = record(fake_client(ScriptedModel([say("one")])), path)
    assert Cassette.load(path).exchanges == []
    client.messages.create(model=looplab.MODEL, max_tokens=9, messages=[FIXED])
    with pytest.raises(looplab.fake.ScriptExhausted):
        client.messages.create(model=looplab.MODEL, max_tokens=9, messages=[FIXED])
    assert len(Cassette.load(path).exchanges) == 1


def test_a_changed_first_request_is_named(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    recorded_run(path)
    with pytest.raises(ReplayMismatch) as caught:
        run_agent(replay(path), TASK + " Be brief.", tools=demo_tools())
    assert str(caught.value).startswith(
        f"replay of {path}: request 1 differs from the recorded one at messages.0.content: "
        f"recorded {json.dumps(TASK)}, sent {json.dumps(TASK + ' Be brief.')}."
    )


def test_a_changed_tool_result_is_named_at_its_place(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    recorded_run(path)
    tools = demo_tools()
    green = dataclasses.replace(tools[0], fn=lambda module: "all green")
    with pytest.raises(ReplayMismatch,
                       match=r"request 2 differs from the recorded one at "
                             r"messages\.2\.content\.0\.content: recorded .*, sent \"all green\""):
        run_agent(replay(path), TASK, tools=[green, *tools[1:]])


def test_a_changed_tool_definition_is_named(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    recorded_run(path)
    tools = demo_tools()
    terse = dataclasses.replace(tools[0], description="Run tests.")
    with pytest.raises(ReplayMismatch, match=r"request 1 differs .* at tools\.0\.description"):
        run_agent(replay(path), TASK, tools=[terse, *tools[1:]])


def test_a_request_after_the_recorded_run_is_named(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    client = record(fake_client(ScriptedModel([say("one")])), path)
    client.messages.create(model=looplab.MODEL, max_tokens=9, messages=[FIXED])
    again = replay(path)
    again.messages.create(model=looplab.MODEL, max_tokens=9, messages=[FIXED])
    with pytest.raises(ReplayMismatch, match="request 2 was not recorded; the cassette holds 1"):
        again.messages.create(model=looplab.MODEL, max_tokens=9, messages=[FIXED])


def test_another_endpoint_is_named(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    client = record(fake_client(ScriptedModel([say("one")])), path)
    client.messages.create(model=looplab.MODEL, max_tokens=9, messages=[FIXED])
    with pytest.raises(ReplayMismatch, match=(
        "request 1 goes to POST /v1/messages/count_tokens, but the recorded request 1 went "
        "to POST /v1/messages")):
        replay(path).messages.count_tokens(model=looplab.MODEL, messages=[FIXED])


def test_an_unfinished_replay_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    recorded_run(path)
    player = Player(Cassette.load(path), "run.json")
    run_agent(player.client(), TASK, tools=demo_tools(), limits=looplab.Limits(max_turns=1))
    with pytest.raises(AssertionError, match="3 of 4 recorded request"):
        player.assert_complete()


def test_replayed_retries_do_not_wait() -> None:
    body = {"max_tokens": 9, "messages": [FIXED], "model": looplab.MODEL}
    error = {"type": "overloaded_error", "message": "Overloaded"}
    answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": looplab.MODEL,
              "content": [{"type": "text", "text": "after the wait"}], "stop_reason": "end_turn",
              "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 3}}
    cassette = Cassette([
        Exchange("POST", "/v1/messages", body, 529, {"retry-after": "30"},
                 {"type": "error", "error": error}),
        Exchange("POST", "/v1/messages", body, 200, {}, answer),
    ])
    player = Player(cassette)
    response = player(httpx2.Request("POST", "https://api.anthropic.com/v1/messages",
                                     json=cassette.exchanges[0].body))
    assert response.status_code == 529
    assert response.headers["retry-after"] == "30"  # as recorded, for a loop that reads it
    assert response.headers["retry-after-ms"] == "1"  # what the SDK's own retry follows
    reply = player.client().messages.create(**cassette.exchanges[1].body)
    assert reply.content[0].text == "after the wait"  # type: ignore[union-attr]


def test_a_cassette_becomes_a_script_that_plays_the_same_run(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    live = recorded_run(path)
    model = to_script(Cassette.load(path))
    assert len(model.steps) == 4  # two calls, the retried fault, the answer
    again = run_agent(fake_client(model), TASK, tools=demo_tools())
    model.assert_complete()
    assert again.messages == live.messages
    assert again.usage == live.usage


def test_a_script_from_a_stream_and_a_400(tmp_path: Path) -> None:
    path = tmp_path / "mixed.json"
    client = record(fake_client(ScriptedModel([say("streamed words here, in pieces")])), path)
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(model=looplab.MODEL, max_tokens=9, messages=[])
    with client.messages.stream(model=looplab.MODEL, max_tokens=64, messages=[FIXED]) as s:
        first = s.get_final_message()
    model = to_script(Cassette.load(path))
    assert len(model.steps) == 1  # the 400 is the fake's own business
    again = fake_client(model).messages.create(model=looplab.MODEL, max_tokens=64,
                                               messages=[FIXED])
    assert again.to_dict()["content"] == first.to_dict(exclude_none=True)["content"]
    assert again.usage == first.usage


@pytest.mark.parametrize(("content", "message"), [
    (None, "no cassette at"),
    ("{not json", "is not a cassette: not valid JSON"),
    ('{"format": "other"}', "is not a cassette: its 'format' is not 'looplab-cassette/2'"),
])
def test_a_file_that_is_not_a_cassette(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "x.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises((FileNotFoundError, ValueError), match=message):
        replay(path)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text("abc", min_size=1, max_size=2), inner, max_size=4),
    max_leaves=12,
)


def _at(value: Any, where: str) -> Any:
    """The value at an API-style path (`messages.0.content`), or MISSING."""
    if where == "the body":
        return value
    for key in where.split("."):
        if isinstance(value, list) and int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, dict) and key in value:
            value = value[key]
        else:
            return MISSING
    return value


@given(json_values, json_values)
def test_first_difference_names_a_place_where_the_values_differ(a: Any, b: Any) -> None:
    found = first_difference(a, b)
    assert (found is None) == (json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True))
    if found is not None:
        where, left, right = found
        assert _at(a, where) == left and _at(b, where) == right
        assert (left, type(left)) != (right, type(right))
