"""The memory tool (`memory_20250818`) offline, through the real SDK: the model's commands
arrive as `tool_use`, looplab's handler answers them from a folder and never outside it,
and a command the live model never sends is a script error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from looplab import MODEL, ScriptedModel, call, fake_client, say
from looplab.fake import ScriptError
from looplab.fake.memory import answer_memory, memory_tool

ASK = [{"role": "user", "content": "Remember that test_login is flaky."}]


def loop(model: ScriptedModel, folder: Path) -> list[dict[str, Any]]:
    tool = memory_tool(folder)
    client = fake_client(model)
    messages: list[dict[str, Any]] = list(ASK)
    while True:
        reply = client.beta.messages.create(model=MODEL, max_tokens=512, messages=messages,
                                            tools=[tool.to_dict()])
        messages.append({"role": "assistant", "content": reply.to_dict()["content"]})
        if reply.stop_reason != "tool_use":
            return messages
        messages.append({"role": "user", "content": [
            answer_memory(block, tool) for block in reply.content if block.type == "tool_use"]})


def results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [block for message in messages if message["role"] == "user"
            and isinstance(message["content"], list) for block in message["content"]]


def test_memory_commands_are_answered_from_the_folder(tmp_path: Path) -> None:
    model = ScriptedModel([
        call("memory", command="view", path="/memories"),
        call("memory", command="create", path="/memories/notes.md",
             file_text="test_login: flaky\n"),
        call("memory", command="str_replace", path="/memories/notes.md",
             old_str="flaky", new_str="flaky on CI only"),
        call("memory", command="view", path="/memories/notes.md"),
        say("Noted."),
    ])
    messages = loop(model, tmp_path)
    assert (tmp_path / "memories" / "notes.md").read_text() == "test_login: flaky on CI only\n"
    answers = results(messages)
    assert not any(answer.get("is_error") for answer in answers)
    assert "flaky on CI only" in answers[-1]["content"]
    assert messages[-1]["content"][0]["text"] == "Noted."


@pytest.mark.parametrize("path", ["/memories/../../outside.txt", "/etc/passwd",
                                  "/memories/../memories2/x"])
def test_the_handler_never_leaves_its_folder(tmp_path: Path, path: str) -> None:
    folder = tmp_path / "agent"
    model = ScriptedModel([call("memory", command="create", path=path, file_text="x"),
                           say("Could not save.")])
    answers = results(loop(model, folder))
    assert answers[0]["is_error"] is True
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == []


def test_a_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    tool = memory_tool(tmp_path / "agent")
    (tmp_path / "agent" / "memories" / "link.txt").symlink_to(outside)
    answer = answer_memory({"id": "toolu_1", "input": {"command": "view",
                                                       "path": "/memories/link.txt"}}, tool)
    assert answer["is_error"] is True and "secret" not in answer["content"]


def test_the_sdk_tool_runner_runs_the_memory_tool(tmp_path: Path) -> None:
    tool = memory_tool(tmp_path)
    model = ScriptedModel([
        call("memory", command="create", path="/memories/todo.md", file_text="- fix login\n"),
        say("Saved."),
    ])
    runner = fake_client(model).beta.messages.tool_runner(
        model=MODEL, max_tokens=512, messages=ASK, tools=[tool], thread=False)  # type: ignore[list-item]
    assert [message.stop_reason for message in runner] == ["tool_use", "end_turn"]
    assert (tmp_path / "memories" / "todo.md").read_text() == "- fix login\n"


@pytest.mark.parametrize("arguments", [{"command": "format", "path": "/memories"},
                                       {"command": "create", "path": "/memories/a.md"},
                                       {"path": "/memories"}])
def test_a_command_the_live_model_never_sends_is_a_script_error(
        tmp_path: Path, arguments: dict[str, Any]) -> None:
    with pytest.raises(ScriptError, match="calls the memory tool"):
        loop(ScriptedModel([call("memory", arguments)]), tmp_path)
