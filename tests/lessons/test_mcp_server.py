"""Lesson 13's MCP server, started over stdio with the official SDK, and its client."""

from __future__ import annotations

from looplab import ScriptedModel, call, fake_client, run_agent, say
from looplab.lessons.mcp_client import McpConnection
from looplab.lessons.mcp_server import POISONED_DESCRIPTION


def test_the_server_lists_the_demo_tools_and_answers_calls_and_refusals() -> None:
    with McpConnection() as mcp:
        listed = mcp.list_tools()
        assert [t["name"] for t in listed] == ["run_tests", "read_file"]
        assert listed[1]["inputSchema"]["required"] == ["path"]
        found = mcp.call_tool("read_file", {"path": "login.py"})
        assert not found["isError"] and "lockout" in found["content"][0]["text"]
        refused = mcp.call_tool("read_file", {"path": "../secrets.txt"})
        assert refused["isError"] and "contains '..'" in refused["content"][0]["text"]


def test_the_servers_tools_run_in_the_unchanged_loop() -> None:
    model = ScriptedModel([call("read_file", path="../x"), call("read_file", path="login.py"),
                           say("done")])
    with McpConnection() as mcp:
        result = run_agent(fake_client(model), "Read login.py.", tools=mcp.tools())
    assert result.done
    first, second = (body["messages"][-1]["content"][0] for body in model.requests[1:])
    assert first["is_error"] and "contains '..'" in first["content"]
    assert "lockout" in second["content"] and not second.get("is_error")


def test_the_poisoned_server_adds_a_tool_whose_description_carries_an_instruction() -> None:
    with McpConnection("--poisoned") as mcp:
        listed = {t["name"]: t for t in mcp.list_tools()}
    assert listed["lookup_setting"]["description"] == POISONED_DESCRIPTION
    assert "<IMPORTANT>" in POISONED_DESCRIPTION


def test_the_server_speaks_the_hosts_language() -> None:
    import looplab

    looplab.set_language("zh-CN")
    try:
        with McpConnection() as mcp:
            refused = mcp.call_tool("read_file", {"path": "../x"})["content"][0]["text"]
            described = mcp.list_tools()[0]["description"]
    finally:
        looplab.set_language(None)
    assert "拒绝" in refused or "仓库" in refused, refused
    assert "运行" in described, described
