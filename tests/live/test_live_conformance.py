"""The conformance probe: its table, rendered offline from a recorded cassette.

The shipped cassette (`looplab/live/conformance.json`) says in its note where it was
recorded. When it holds a live endpoint's answers, `test_the_fake_agrees_with_the_recording`
fails wherever the fake answers differently: fix the fake's text, or list the probe in
KNOWN_DIFFERENCES with the reason.
"""

from __future__ import annotations

import copy
import runpy
from pathlib import Path
from typing import Any

import pytest

import looplab
from looplab import FunctionModel, say
from looplab.fake import fake_client
from looplab.live import Cassette, Player, conformance
from looplab.live.conformance import PROBES, RECORDED, Table
from looplab.live.feature_probes import FEATURE_PROBES

TOOL = Path(__file__).resolve().parents[2] / "tools" / "conformance.py"
KNOWN_DIFFERENCES: dict[str, str] = {}
"""probe name -> why the fake may answer it differently from the recording."""


def replayed(cassette: Cassette) -> Table:
    player = Player(cassette, "the conformance cassette")
    assert cassette.model is not None
    table = conformance.run(player.client(), cassette.model, endpoint=cassette.endpoint)
    player.assert_complete()
    return table


def probed(cassette: Cassette) -> dict[str, Any]:
    """Each probe's own exchange (not the setup requests some send first), by name."""
    exchanges = iter(cassette.exchanges)
    found = {}
    for probe in PROBES:
        for _ in range(probe.setups):
            next(exchanges)
        found[probe.name] = next(exchanges)
    assert next(exchanges, None) is None, "the cassette holds more than the probes sent"
    return found


def recorded_answers(cassette: Cassette) -> list[tuple[int, str]]:
    answers = []
    for exchange in probed(cassette).values():
        error = (exchange.response or {}).get("error") or {}
        answers.append((exchange.status, str(error.get("message", ""))))
    return answers


def test_the_recorded_table_renders_offline() -> None:
    cassette = Cassette.load(RECORDED)
    table = replayed(cassette)
    assert [row.probe.name for row in table.rows] == [probe.name for probe in PROBES]
    assert [(row.live.status, row.live.message) for row in table.rows] == \
        recorded_answers(cassette)
    text = str(table)
    assert text.startswith(f"live: {cassette.endpoint} (model {cassette.model})\n"
                           "fake: looplab's offline fake\n")
    assert "\ntool_role               shape   400   400  yes\n" in text
    assert "\n    live: 400 invalid_request_error: messages.2.role: Input should be 'user' or " \
           "'assistant'\n" in text


def test_the_fake_agrees_with_the_recording() -> None:
    table = replayed(Cassette.load(RECORDED))
    differ = {row.probe.name: f"{row.agree}: live {row.live} / fake {row.fake}"
              for row in table.disagreements if row.probe.name not in KNOWN_DIFFERENCES}
    assert differ == {}


def test_the_shipped_cassette_says_where_it_was_recorded() -> None:
    cassette = Cassette.load(RECORDED)
    assert cassette.note.startswith("Recorded from looplab's offline fake, not from a live "
                                    "endpoint")
    assert cassette.endpoint == "looplab's offline fake, standing in for a live endpoint"


def test_every_rule_has_a_probe_the_fake_refuses() -> None:
    table = replayed(Cassette.load(RECORDED))
    refused = {row.probe.rule for row in table.rows if row.fake.status == 400}
    assert {"1", "2", "3", "4", "5"} <= refused
    assert len({probe.name for probe in PROBES}) == len(PROBES)


def _edit(cassette: Cassette, probe_name: str) -> dict[str, Any]:
    """The recorded response of one probe, to edit as if the live endpoint had said it."""
    return probed(cassette)[probe_name].__dict__  # type: ignore[no-any-return]


def test_a_live_answer_that_differs_shows_in_the_table() -> None:
    cassette = copy.deepcopy(Cassette.load(RECORDED))
    tool_role = _edit(cassette, "tool_role")
    tool_role["response"]["error"]["message"] = "messages.2.role: Input should be 'user', " \
        "'assistant' or 'system'"
    first = _edit(cassette, "first_is_assistant")
    valid = _edit(cassette, "valid_transcript")
    first.update(status=200, response=valid["response"])
    table = replayed(cassette)
    agree = {row.probe.name: row.agree for row in table.rows}
    assert agree["tool_role"] == "status only"
    assert agree["first_is_assistant"] == "no"
    assert [row.probe.name for row in table.disagreements] == ["tool_role", "first_is_assistant"]
    text = str(table)
    assert f"{len(PROBES) - 2} agree, 1 differ in the text only, 1 differ, 0 not compared." \
        in text
    assert ("- tool_role: the result sent with role \"tool\"\n"
            "    live: 400 invalid_request_error: messages.2.role: Input should be 'user', "
            "'assistant' or 'system'\n"
            "    fake: 400 invalid_request_error: messages.2.role: Input should be 'user' or "
            "'assistant'\n") in text
    assert ("- first_is_assistant: the history starts with an assistant message\n"
            "    live: 200 accepted (end_turn)\n"
            "    fake: 400 invalid_request_error: messages: first message must use "
            "the \"user\" role\n") in text


def probe_bodies() -> list[Any]:
    return [exchange.body for exchange in probed(Cassette.load(RECORDED)).values()]


def test_every_feature_the_api_runs_itself_is_probed() -> None:
    bodies = probe_bodies()
    edits = {edit["type"] for body in bodies
             for edit in (body.get("context_management") or {}).get("edits", [])}
    assert edits >= {"clear_tool_uses_20250919", "clear_thinking_20251015", "compact_20260112"}
    configs = {key for body in bodies for key in body.get("output_config") or {}}
    assert configs >= {"task_budget", "effort"}
    tools = [tool for body in bodies for tool in body.get("tools") or []]
    assert any(tool.get("defer_loading") for tool in tools)
    assert {"memory_20250818", "tool_search_tool_regex_20251119"} <= {
        tool.get("type") for tool in tools}
    assert any("compaction" in body for body in bodies)
    assert any("fallbacks" in body for body in bodies)
    assert {probe.rule for probe in FEATURE_PROBES} == {"feat"}


def test_a_feature_the_endpoint_plays_differently_shows_in_the_table() -> None:
    cassette = copy.deepcopy(Cassette.load(RECORDED))
    edits = _edit(cassette, "clear_tool_uses")["response"]["context_management"]
    edits["applied_edits"][0]["cleared_tool_uses"] = 3  # the endpoint counted otherwise
    compacted = _edit(cassette, "compact_now")["response"]
    compacted.update(content=[{"type": "text", "text": "Summary."}], stop_reason="end_turn")
    table = replayed(cassette)
    assert [row.probe.name for row in table.disagreements] == ["clear_tool_uses", "compact_now"]
    text = str(table)
    assert ("- clear_tool_uses: three tool uses, cleared past two, the newest kept\n"
            "    live: 200 accepted (end_turn); applied_edits: clear_tool_uses_20250919 "
            "cleared_tool_uses=3\n"
            "    fake: 200 accepted (end_turn); applied_edits: clear_tool_uses_20250919 "
            "cleared_tool_uses=2\n") in text
    assert ("    live: 200 accepted (end_turn); no compaction block\n"
            "    fake: 200 accepted (compaction); compaction block first\n") in text


def test_the_recorded_feature_probes_show_what_the_fake_played() -> None:
    answers = {row.probe.name: str(row.fake) for row in replayed(Cassette.load(RECORDED)).rows}
    assert answers["clear_tool_uses"].endswith(
        "applied_edits: clear_tool_uses_20250919 cleared_tool_uses=2")
    assert answers["clear_thinking"].endswith(
        "applied_edits: clear_thinking_20251015 cleared_thinking_turns=1")
    assert answers["compact_now"] == "200 accepted (compaction); compaction block first"
    assert answers["compact_below"] == "200 accepted (end_turn); no compaction block"
    assert answers["effort_unknown"].startswith(
        "400 invalid_request_error: output_config.effort: Input should be 'low'")
    assert answers["fallbacks"] == "200 accepted (end_turn)"


def test_a_probe_that_cannot_be_set_up_is_not_compared() -> None:
    never_thinks = fake_client(FunctionModel(lambda request: say("ok")))
    table = conformance.run(never_thinks, looplab.MODEL)
    row = next(row for row in table.rows if row.probe.name == "thinking_modified")
    assert (row.live.status, row.agree) == (0, "n/a")
    assert str(row.live) == ("not sent: the setup reply had no thinking block and tool_use to "
                             "edit (text)")
    assert row.fake.status == 400
    row = next(row for row in table.rows if row.probe.name == "clear_thinking")
    assert str(row.live) == ("not sent: a setup reply had no thinking block to clear (text)")
    assert (row.agree, row.fake.effect) == (
        "n/a", "applied_edits: clear_thinking_20251015 cleared_thinking_turns=1")


def test_a_refused_setup_request_is_not_compared_and_stops_nothing() -> None:
    def no_thinking(request: Any) -> Any:
        if request.body.get("thinking"):
            return looplab.fake.api_error(400, "invalid_request_error",
                                          "thinking is not supported by this model")
        return say("ok")

    table = conformance.run(fake_client(FunctionModel(no_thinking)), looplab.MODEL)
    row = next(row for row in table.rows if row.probe.name == "clear_thinking")
    assert str(row.live) == ("not sent: a setup request was refused (400 invalid_request_error: "
                             "thinking is not supported by this model)")
    assert table.rows[-1].live.status == 200, "the probes after it are still sent"


# -- the command (tools/conformance.py, `make conformance`) ----------------------------------


@pytest.fixture
def command() -> Any:
    return runpy.run_path(str(TOOL))["main"]


def test_the_command_needs_the_live_switch(
    command: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert command([]) == 2
    out = capsys.readouterr().out
    assert out.startswith("looplab: using the offline fake API (set LOOPLAB_LIVE=1 to go live).\n"
                          "make conformance sends requests to a live endpoint")
    assert "python tools/conformance.py --replay src/looplab/live/conformance.json" in out


def test_the_command_replays_a_recording(
    command: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert command(["--replay", str(RECORDED)]) == 0
    out = capsys.readouterr().out
    assert "Recorded from looplab's offline fake" in out
    assert str(replayed(Cassette.load(RECORDED))) in out


def test_the_command_records_the_live_side(
    command: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """With the switch on, the client `connect.client()` returns is probed and recorded
    (here it is the fake itself, so no request leaves the process)."""
    monkeypatch.setenv("LOOPLAB_LIVE", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setattr(looplab.connect, "client",
                        lambda: fake_client(conformance.fake_model()))
    save = tmp_path / "endpoint.json"
    assert command(["--save", str(save)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"sending {len(PROBES)} probes as model {looplab.MODEL}; recording "
                          f"to {save}\nlive: https://api.anthropic.com (model ")
    cassette = Cassette.load(save)
    assert cassette.note == "Recorded from https://api.anthropic.com with model " \
        f"{looplab.MODEL}."
    assert not replayed(cassette).disagreements


def test_the_command_never_replaces_a_recording_unless_asked(
    command: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    save = tmp_path / "endpoint.json"
    Cassette(note="a live endpoint, paid for", endpoint="https://api.anthropic.com/").save(save)
    before = save.read_bytes()
    assert command(["--from-fake", "--save", str(save)]) == 1
    assert capsys.readouterr().out.startswith(f"not recorded: {save} exists: ")
    assert command(["--from-fake", "--overwrite", "--save", str(save)]) == 1
    assert "holds a live recording" in capsys.readouterr().out
    assert save.read_bytes() == before
    fake = tmp_path / "fake.json"
    assert command(["--from-fake", "--save", str(fake)]) == 0
    assert command(["--from-fake", "--overwrite", "--save", str(fake)]) == 0


def test_the_command_refuses_a_folder_and_leaves_nothing_beside_it(
    command: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    assert command(["--from-fake", "--save", str(folder)]) == 1
    assert capsys.readouterr().out == f"not recorded: {folder} is a folder: name a file to " \
        "record to\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


@pytest.mark.parametrize("content", [
    '{"format": "looplab-cassette/1", "exchanges": "abc"}',
    "null",
    "[" * 100_000 + "]" * 100_000,
    '{"format": "looplab-cassette/1", "exchanges": []}',  # the first probe is not in it
])
def test_the_command_replays_a_wrong_file_in_one_line(
    command: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str
) -> None:
    path = tmp_path / "x.json"
    path.write_text(content, encoding="utf-8")
    assert command(["--replay", str(path)]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out[-1]) < 400 and str(path) in out[-1]
    assert "Traceback" not in "".join(out)


def test_the_command_replays_a_folder_in_one_line(
    command: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert command(["--replay", str(tmp_path)]) == 1
    assert capsys.readouterr().out.count("\n") == 1


def test_the_readme_says_what_a_run_sends() -> None:
    exchanges = Cassette.load(RECORDED).exchanges
    output = sum(exchange.body["max_tokens"] for exchange in exchanges)
    readme = " ".join((TOOL.parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert (f"It sends {len(exchanges)} small requests (at most {output:,} output tokens in "
            "all") in readme
