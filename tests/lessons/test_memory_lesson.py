"""Lesson 17: the memory tool in `run_agent` (looplab.lessons.memory) logs every write with
what its session had read, a gate's refusal is an `is_error` result that writes nothing, and
both editions show the false fact traced to the write that stored it and filtered."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from editions import NOTEBOOKS, chinese

from looplab import ScriptedModel, call, fake_client, run_agent, say
from looplab.lessons.memory import Session, memory, web_page

EDITIONS = [NOTEBOOKS / "17_memory_is_a_tool.ipynb", chinese("17")]
URL = "https://wiki.example/lockout"


def run(folder: Path, session: Session, steps: list[Any], gate: Any = None) -> Any:
    model = ScriptedModel(steps)
    tools = [memory(folder, session, gate), web_page({URL: "limit: 5"}, session)]
    return model, run_agent(fake_client(model), "Keep notes.", tools=tools)


def test_the_memory_tool_goes_out_as_the_apis_own_and_writes_are_logged(tmp_path: Path) -> None:
    log: list[Any] = []
    model, result = run(tmp_path, Session("one", log), [
        call("memory", command="create", path="/memories/a.md", file_text="- a\n"),
        call("memory", command="view", path="/memories/a.md"),
        call("fetch_page", url=URL),
        call("memory", command="str_replace", path="/memories/a.md", old_str="a",
             new_str="b"),
        say("Done."),
    ])
    assert result.done
    assert {"type": "memory_20250818", "name": "memory"} in model.requests[0]["tools"]
    assert [(w.number, w.command, w.text, w.read) for w in log] == [
        (1, "create", "- a\n", ()), (2, "str_replace", "b", (f"page {URL}",))]
    assert (tmp_path / "memories" / "a.md").read_text() == "- b\n"


def test_a_gate_refusal_is_an_is_error_result_and_writes_nothing(tmp_path: Path) -> None:
    log: list[Any] = []
    asked: list[tuple[str, list[str]]] = []

    def gate(c: dict[str, Any], read: list[str]) -> str | None:
        asked.append((c["input"]["command"], read))
        return f"refused after {read[0]}" if read else None

    _, result = run(tmp_path, Session("one", log), [
        call("fetch_page", url=URL),
        call("memory", command="create", path="/memories/a.md", file_text="- 50\n"),
        say("Could not."),
    ], gate)
    answered = result.turns[1].tool_calls[0]
    assert answered.is_error and answered.result == f"refused after page {URL}"
    assert asked == [("create", [f"page {URL}"])]
    assert log == [] and not (tmp_path / "memories" / "a.md").exists()


def test_an_escaping_path_is_an_is_error_and_not_logged(tmp_path: Path) -> None:
    log: list[Any] = []
    _, result = run(tmp_path / "agent", Session("one", log), [
        call("memory", command="create", path="/memories/../../x", file_text="x"),
        say("No."),
    ])
    assert result.turns[0].tool_calls[0].is_error and log == []
    assert not (tmp_path / "x").exists()


def printed(lesson: Path, cell_id: str) -> str:
    cell = next(c for c in nbformat.read(lesson, 4).cells if c.get("id") == cell_id)
    return "".join(o.get("text", "") for o in cell.outputs)


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_false_fact_is_recalled_traced_to_its_write_and_filtered(lesson: Path) -> None:
    recalled, traced, filtered = (printed(lesson, f"cell-{n:02d}") for n in (9, 11, 13))
    assert "50" in recalled and "50" not in filtered  # recalled on Thursday, gone on Friday
    assert "test_login" in recalled and "test_login" in filtered  # Monday's note stays
    number = re.search(r"(\d+)", traced).group(1)  # type: ignore[union-attr]
    assert f"[{number}]" in filtered.splitlines()[-1] and URL in traced
    assert traced.count(URL) == 1  # one write, and the page read before it


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_second_session_starts_from_one_message_and_names_the_source(lesson: Path) -> None:
    text = printed(lesson, "cell-07")
    assert re.search(r"\b1\b", text.splitlines()[0])
    assert "test_login" in text and URL not in text
