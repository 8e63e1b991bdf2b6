"""A recording is never lost: no cassette is replaced unless asked, a live one never by the
fake's, no link is written through, threads and a full disk do not break it, and a file
that is not a cassette fails in one line."""

from __future__ import annotations

import errno
import json
import os
import threading
from pathlib import Path

import pytest

import looplab
from looplab import Cassette, FunctionModel, ScriptedModel, fake_client, record, run_agent, say
from looplab.live.conformance import RECORDED

FIXED = {"role": "user", "content": "hi"}


def one_exchange(path: Path, **options: object) -> None:
    client = record(fake_client(ScriptedModel([say("one")])), path, **options)  # type: ignore[arg-type]
    client.messages.create(model=looplab.MODEL, max_tokens=9, messages=[FIXED])


def live_cassette(path: Path) -> None:
    """A file as a recording of a live endpoint leaves it."""
    Cassette(note="paid for", endpoint="https://api.anthropic.com/", live=True).save(path)


def test_an_existing_cassette_is_not_replaced_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    one_exchange(path)
    before = path.read_bytes()
    with pytest.raises(FileExistsError, match="exists: record\\(..., overwrite=True\\)"):
        record(fake_client(ScriptedModel([])), path)
    assert path.read_bytes() == before
    one_exchange(path, overwrite=True)
    assert len(Cassette.load(path).exchanges) == 1


def test_a_live_recording_is_never_replaced_by_the_fake(tmp_path: Path) -> None:
    path = tmp_path / "login-run.json"
    live_cassette(path)
    before = path.read_bytes()
    with pytest.raises(FileExistsError, match="holds a live recording"):
        record(fake_client(ScriptedModel([])), path, overwrite=True)
    with pytest.raises(FileExistsError, match="holds a live recording"):
        record(looplab.replay(path), path, overwrite=True)
    assert path.read_bytes() == before


def test_an_old_cassette_recorded_live_is_kept_too(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    old = {"format": "looplab-cassette/1", "note": "", "endpoint": "https://api.anthropic.com/",
           "exchanges": []}
    path.write_text(json.dumps(old), encoding="utf-8")
    with pytest.raises(FileExistsError, match="holds a live recording"):
        record(fake_client(ScriptedModel([])), path, overwrite=True)


def test_a_link_is_never_written_through(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me", encoding="utf-8")
    path = tmp_path / "run.json"
    (tmp_path / "run.json.partial").symlink_to(precious)
    path.symlink_to(precious)
    with pytest.raises(FileExistsError):
        record(fake_client(ScriptedModel([])), path)
    one_exchange(path, overwrite=True)
    Cassette(note="saved whole").save(path)
    assert precious.read_text(encoding="utf-8") == "keep me"
    assert not path.is_symlink() and Cassette.load(path).note == "saved whole"


def test_a_folder_is_refused_and_nothing_is_left_beside_it(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    with pytest.raises(FileExistsError, match="is a folder"):
        record(fake_client(ScriptedModel([])), folder, overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]


def test_eight_threads_share_one_recording(tmp_path: Path) -> None:
    path = tmp_path / "threads.json"
    client = record(fake_client(FunctionModel(lambda r: say(r.last_user_text()))), path)
    failures: list[BaseException] = []

    def send(worker: int) -> None:
        for n in range(25):
            message = {"role": "user", "content": f"{worker}-{n}"}
            try:
                client.messages.create(model=looplab.MODEL, max_tokens=9, messages=[message])
            except BaseException as err:  # noqa: BLE001 - every failure is the finding
                failures.append(err)

    threads = [threading.Thread(target=send, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    sent = sorted(e.body["messages"][0]["content"] for e in Cassette.load(path).exchanges)
    assert sent == sorted(f"{w}-{n}" for w in range(8) for n in range(25))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["threads.json"]


def test_a_full_disk_stops_the_run_with_its_history(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from looplab.live import journal

    path = tmp_path / "full.json"
    client = record(fake_client(ScriptedModel([say("one")])), path)
    real_write = os.write

    def full(descriptor: int, data: bytes) -> int:
        real_write(descriptor, data[:10])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal.os, "write", full)
    result = run_agent(client, "hi")
    monkeypatch.undo()
    assert result.status == "api_error"
    assert "could not be written (OSError: No space left on device)" in result.detail
    assert result.messages == [{"role": "user", "content": "hi"}]
    assert Cassette.load(path).exchanges == []  # no half line left behind


def test_a_cut_off_last_line_is_left_out(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    one_exchange(path)
    with path.open("a", encoding="utf-8") as out:
        out.write('{"request": {"method": "PO')
    assert len(Cassette.load(path).exchanges) == 1


def test_a_cassette_in_the_first_format_still_loads(tmp_path: Path) -> None:
    # the shipped recording, written as the first format wrote it: one JSON object
    shipped = Cassette.load(RECORDED)
    old = tmp_path / "old.json"
    old.write_text(json.dumps({
        "format": "looplab-cassette/1", "note": shipped.note, "endpoint": shipped.endpoint,
        "exchanges": [exchange.to_json() for exchange in shipped.exchanges]}, indent=2),
        encoding="utf-8")
    cassette = Cassette.load(old)
    assert len(cassette.exchanges) > 10 and cassette.live is False
    assert cassette.exchanges == shipped.exchanges


DEEP = "[" * 100_000 + "]" * 100_000
HEADER = '{"format": "looplab-cassette/2"}\n'
EXCHANGE = {"request": {"method": "POST", "path": "/v1/messages", "body": {}},
            "response": {"status": 200, "headers": {}, "body": {}}}


def line(**changes: object) -> str:
    data = json.loads(json.dumps(EXCHANGE))
    for where, value in changes.items():
        part, key = where.split("__")
        if value is None:
            del data[part][key]
        else:
            data[part][key] = value
    return json.dumps(data) + "\n"


@pytest.mark.parametrize(("content", "reason"), [
    ('{"format": "looplab-cassette/1", "exchanges": "abc"}',
     "x.json is not a valid cassette: exchanges: 'abc' is not of type 'array'"),
    ('{"format": "looplab-cassette/1", "exchanges": [{"response": {"status": 200}}]}',
     "x.json is not a valid cassette: exchange 1: the entry: 'request' is a required property"),
    ("null", "x.json is not a cassette: its 'format' is not 'looplab-cassette/2'"),
    (HEADER + line(response__status="abc"),
     "x.json is not a valid cassette: line 2: response.status: 'abc' is not of type 'integer'"),
    (HEADER + line(request__method=None),
     "x.json is not a valid cassette: line 2: request: 'method' is a required property"),
    (HEADER + line(response__text="abc"),
     "x.json is not a valid cassette: line 2: response.text: 'abc' is not of type 'array'"),
    (HEADER + DEEP + "\n", "x.json line 2 is not a cassette: its JSON is nested too deeply"),
    (DEEP, "x.json is not a cassette: its JSON is nested too deeply"),
    ("\ufeff\xff", "x.json is not a cassette: "),
    (HEADER + line(request__extends={"messages": 2, "keys": []}),
     "line 2: request.body: 'messages' is a required property"),
])
def test_a_wrong_file_fails_in_one_line(tmp_path: Path, content: str, reason: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        Cassette.load(path)
    message = str(caught.value)
    assert reason in message and "\n" not in message and len(message) < 400


def test_a_folder_is_not_a_cassette(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not a cassette: it cannot be read"):
        Cassette.load(tmp_path)


def test_text_as_a_string_is_refused_not_replayed_letter_by_letter(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(HEADER + line(response__text="oops", response__body=None), encoding="utf-8")
    with pytest.raises(ValueError, match="response.text: 'oops' is not of type 'array'"):
        looplab.replay(path)


def odd(status: int, body: object, **response: object) -> Cassette:
    from looplab.live import Exchange

    return Cassette([
        Exchange("POST", "/v1/messages", {"model": "m", "max_tokens": 9, "messages": []}, 200,
                 {}, {"content": [{"type": "text", "text": "fine"}], "stop_reason": "end_turn"}),
        Exchange("POST", "/v1/messages", body, status, **response),  # type: ignore[arg-type]
    ])


@pytest.mark.parametrize(("cassette", "reason"), [
    (odd(200, [1, 2], headers={"content-type": "text/event-stream"},
         text=["event: message_start", "data: {}"]), ""),
    (odd(200, {"model": "m", "max_tokens": 9, "messages": [], "stream": True},
         headers={"content-type": "text/event-stream"}, text=["event: ping", "data: {}"]), ""),
    (odd(200, {}, response={"content": [1]}), ""),
    (odd(200, {}, response={"content": "a string"}), "is not a message"),
])
def test_a_script_from_an_odd_cassette_names_the_exchange(cassette: Cassette,
                                                          reason: str) -> None:
    from looplab.live import to_script

    with pytest.raises(ValueError) as caught:
        to_script(cassette)
    message = str(caught.value)
    assert message.startswith("exchange 2 (POST /v1/messages, status 200) cannot become a "
                              "step: ") and reason in message and "\n" not in message
