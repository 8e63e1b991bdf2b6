"""`to_script` on a hand-edited cassette says what in the recording is wrong, in words a
user can act on: garbage in a recorded stream, a content block that is a string, an
error's `details` given as a list (which the fake would otherwise fail on mid-run)."""

from __future__ import annotations

from pathlib import Path

import pytest

import looplab
from looplab import Cassette, ScriptedModel, fake_client, record, say
from looplab.errors import NotACassette
from looplab.live.cassette import Exchange
from looplab.live.script import to_script

FIXED = {"role": "user", "content": "Say something."}


def streamed(tmp_path: Path) -> Cassette:
    path = tmp_path / "stream.json"
    client = record(fake_client(ScriptedModel([say("streamed words")])), path)
    with client.messages.stream(model=looplab.MODEL, max_tokens=64, messages=[FIXED]) as s:
        s.get_final_message()
    return Cassette.load(path)


def answered(response: object, status: int = 200) -> Cassette:
    body = {"model": looplab.MODEL, "max_tokens": 10, "messages": [FIXED]}
    return Cassette([Exchange("POST", "/v1/messages", body, status, response=response)])


@pytest.mark.parametrize(("garbage", "said"), [
    (["this is not an event"], "line 1 of its stream is not a server-sent event"),
    (["event: message_start", "data: {not json"], "line 2 of its stream has data that is not JSON"),
    (["event: ping", "data: {}"], "goes from message_start to message_stop"),
])
def test_garbage_in_a_recorded_stream_is_named(tmp_path: Path, garbage: list[str],
                                               said: str) -> None:
    cassette = streamed(tmp_path)
    cassette.exchanges[0].text = garbage
    with pytest.raises(NotACassette, match="exchange 1 .* cannot become a step: .*" + said):
        to_script(cassette)


def test_a_content_block_that_is_a_string_is_named() -> None:
    cassette = answered({"type": "message", "role": "assistant", "content": ["hello"],
                         "stop_reason": "end_turn", "usage": {}})
    with pytest.raises(NotACassette, match=r"content block 0 of the recorded answer is 'hello', "
                                           r"not an object with a \"type\""):
        to_script(cassette)


def test_error_details_given_as_a_list_are_refused_before_the_run() -> None:
    cassette = answered({"type": "error", "error": {"type": "invalid_request_error",
                                                    "message": "no", "details": ["a", "b"]}},
                        status=429)
    with pytest.raises(NotACassette, match=r"\"details\" is \[\"a\", \"b\"\]; the API sends an "
                                           r"object there"):
        to_script(cassette)
