"""A streamed answer reaches a graded kernel piece by piece, as the SDK reads it: lesson 19's
checker times the student's callbacks on the check's clock, which the fake moves as each
piece is read. Read whole on the grader's side, every answer would look late."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx2
import pytest

from looplab.grading import grade_folder
from looplab.grading.wire import MAX_STREAMS, Wire

REPO = Path(__file__).resolve().parents[2]
LESSON = REPO / "notebooks" / "19_streaming_a_turn.ipynb"
AT_THE_END = '''
def stream_turn(client, request, on_text, on_call):
    with client.messages.stream(**request) as stream:
        final = stream.get_final_message()
    for block in final.content:
        if block.type == "text":
            on_text(block.text)
        elif final.stop_reason != "max_tokens":
            on_call(block.name, block.input)
    return final
'''


def _with_answer(folder: Path, answer: str | None) -> None:
    folder.mkdir()
    if answer is None:
        shutil.copyfile(LESSON, folder / LESSON.name)
        return
    notebook = json.loads(LESSON.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if "### BEGIN SOLUTION" in "".join(cell["source"]):
            cell["source"] = answer
    (folder / LESSON.name).write_text(json.dumps(notebook), encoding="utf-8")


@pytest.mark.slow  # grades a lesson twice: seconds
def test_a_streamed_turn_is_graded_as_it_arrives(tmp_path: Path) -> None:
    _with_answer(tmp_path / "right", None)
    _with_answer(tmp_path / "late", AT_THE_END)
    grades = {g.student: g for g in grade_folder(tmp_path, jobs=2)}
    assert grades["right"].status == "passed", grades["right"].first_failed_hint()
    late = grades["late"]
    assert [r.name for r in late.rows if not r.passed] == [
        "text is shown piece by piece, as it arrives",
        "a call runs when its block ends, before the next block arrives"]


def test_a_kernel_that_opens_streams_and_never_reads_them_holds_only_the_newest(
    tmp_path: Path,
) -> None:
    wire = Wire(tmp_path)
    try:
        responses = [httpx2.Response(200, stream=httpx2.ByteStream(f"event {n}".encode()))
                     for n in range(MAX_STREAMS + 3)]
        numbers = [wire._opened_stream(r) for r in responses]
        assert [r.is_closed for r in responses] == [True] * 3 + [False] * MAX_STREAMS
        assert wire._read({"stream": numbers[0]})["raised"]["type"] == "LookupError"
        assert wire._read({"stream": 10**9})["raised"]["type"] == "LookupError"
        last = numbers[-1]
        assert wire._read({"stream": last}) == {"chunk": "ZXZlbnQgMTg="}  # "event 18"
        assert wire._read({"stream": last}) == {"done": True} and responses[-1].is_closed
        assert wire._read({"stream": last})["raised"]["type"] == "LookupError"
    finally:
        wire.close()
