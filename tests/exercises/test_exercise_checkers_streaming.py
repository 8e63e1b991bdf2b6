"""Lesson 19's checker: a right `stream_turn` passes, a stub is one line, and each plausible
wrong answer fails the check that names it (through the real SDK's stream, on a fake clock)."""

from __future__ import annotations

import json
from typing import Any

from scorecards import failed, stub

from looplab.exercises import check_stream_turn

CUT = "a call cut by max_tokens, whose JSON does not parse, never runs"
TIMELY = "a call runs when its block ends, before the next block arrives"
PIECES = "text is shown piece by piece, as it arrives"
ONCE = "each call runs once, with its whole input"


def stream_turn(client: Any, request: Any, on_text: Any, on_call: Any) -> Any:
    pieces: dict[int, tuple[str, list[str]]] = {}
    with client.messages.stream(**request) as stream:
        for event in stream:
            if event.type == "content_block_start" and event.content_block.type == "tool_use":
                pieces[event.index] = (event.content_block.name, [])
            elif event.type == "content_block_delta" and event.delta.type == "text_delta":
                on_text(event.delta.text)
            elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                pieces[event.index][1].append(event.delta.partial_json)
            elif event.type == "content_block_stop" and event.index in pieces:
                name, parts = pieces.pop(event.index)
                try:
                    tool_input = json.loads("".join(parts) or "{}")
                except ValueError:
                    continue
                on_call(name, tool_input)
        return stream.get_final_message()


def test_the_reference_stream_turn_passes() -> None:
    card = check_stream_turn(stream_turn)
    assert card.passed and len(card) == 4, str(card)


def test_a_stub_stream_turn_is_one_line_not_written_yet() -> None:
    card = check_stream_turn(stub)
    assert len(card) == 4 and str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_running_the_sdks_block_at_its_stop_runs_a_cut_call() -> None:
    """The SDK's `content_block_stop` carries the input it parsed leniently: for a call cut
    by max_tokens that is what was complete, `{'path': 'a.md'}`, and running it is wrong."""

    def sdk_block(client: Any, request: Any, on_text: Any, on_call: Any) -> Any:
        with client.messages.stream(**request) as stream:
            for event in stream:
                if event.type == "text":
                    on_text(event.text)
                elif event.type == "content_block_stop" and event.content_block.type == "tool_use":
                    on_call(event.content_block.name, event.content_block.input)
            return stream.get_final_message()

    assert failed(check_stream_turn(sdk_block)) == [CUT]


def test_everything_after_the_final_message_is_too_late() -> None:
    def at_end(client: Any, request: Any, on_text: Any, on_call: Any) -> Any:
        with client.messages.stream(**request) as stream:
            final = stream.get_final_message()
        for block in final.content:
            if block.type == "text":
                on_text(block.text)
            elif final.stop_reason != "max_tokens":
                on_call(block.name, block.input)
        return final

    assert failed(check_stream_turn(at_end)) == [PIECES, TIMELY]


def test_running_a_call_as_soon_as_its_snapshot_parses_runs_it_early_and_half() -> None:
    def eager(client: Any, request: Any, on_text: Any, on_call: Any) -> Any:
        with client.messages.stream(**request) as stream:
            for event in stream:
                if event.type == "text":
                    on_text(event.text)
                elif event.type == "input_json" and event.snapshot:
                    name = stream.current_message_snapshot.content[-1].name
                    on_call(name, dict(event.snapshot))
            return stream.get_final_message()

    assert failed(check_stream_turn(eager)) == [ONCE, TIMELY, CUT]
