"""Fine-grained tool streaming on the fake (`eager_input_streaming`), through the real
SDK: the input arrives in `input_json_delta` pieces of partial JSON, and a call cut by
`max_tokens` streams JSON that does not parse, as the docs warn."""

from __future__ import annotations

import json
from typing import Any

from looplab import MODEL, ScriptedModel, call, fake_client

NOTE = "The login test fails because the session cookie expires before the redirect. " * 3
TOOL = {"name": "write_note", "input_schema": {"type": "object"}}
ASK = [{"role": "user", "content": "Write it down."}]


def stream(tool: dict[str, Any], max_tokens: int) -> tuple[list[str], Any]:
    client = fake_client(ScriptedModel([call("write_note", path="notes.md", text=NOTE)]))
    pieces: list[str] = []
    with client.beta.messages.stream(model=MODEL, max_tokens=max_tokens, messages=ASK,
                                     tools=[tool]) as events:  # type: ignore[list-item]
        for event in events:
            if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                pieces.append(event.delta.partial_json)
        return pieces, events.get_final_message()


def test_an_eager_tool_cut_by_max_tokens_streams_invalid_json() -> None:
    pieces, final = stream({**TOOL, "eager_input_streaming": True}, max_tokens=40)
    written = "".join(pieces)
    assert len(pieces) > 1 and written.startswith('{"path":"notes.md","text":"The login')
    try:
        json.loads(written)
    except ValueError:
        pass
    else:
        raise AssertionError(f"a cut eager call should stream invalid JSON: {written!r}")
    assert final.stop_reason == "max_tokens"
    # the SDK reads partial JSON and keeps only what is complete
    assert final.content[0].input == {"path": "notes.md"}


def test_without_eager_streaming_a_cut_call_streams_the_kept_input_as_json() -> None:
    pieces, final = stream(TOOL, max_tokens=40)
    assert json.loads("".join(pieces)) == final.content[0].input
    assert final.stop_reason == "max_tokens"


def test_a_whole_eager_call_streams_partial_pieces_of_valid_json() -> None:
    pieces, final = stream({**TOOL, "eager_input_streaming": True}, max_tokens=1000)
    assert len(pieces) > 1 and not _parses(pieces[0])
    assert json.loads("".join(pieces)) == {"path": "notes.md", "text": NOTE}
    assert final.stop_reason == "tool_use"


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
