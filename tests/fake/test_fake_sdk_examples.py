"""The SDK's own examples for the features the fake simulates (tests/fake/sdk_examples,
copied unchanged) run as is against the fake: `anthropic.Anthropic` is answered by a
scripted model, everything else is the example's own code."""

from __future__ import annotations

import builtins
import runpy
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

from looplab import call, refuse, say
from looplab.fake import FakeModel, ScriptedModel
from looplab.fake.client import FAKE_API_KEY, FAKE_BASE_URL
from looplab.fake.server import FakeServer

EXAMPLES = Path(__file__).parent / "sdk_examples"


def run(example: str, model: FakeModel, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run `example` as `__main__`, every `Anthropic()` it makes answered by `model`."""
    real = anthropic.Anthropic
    server = FakeServer(model)

    def offline(**options: Any) -> anthropic.Anthropic:
        http = httpx2.Client(transport=httpx2.MockTransport(server))
        return real(api_key=FAKE_API_KEY, base_url=FAKE_BASE_URL, http_client=http, **options)

    monkeypatch.setattr(anthropic, "Anthropic", offline)
    runpy.run_path(str(EXAMPLES / example), run_name="__main__")


def test_fallbacks_example(monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    model = ScriptedModel([
        refuse("cyber"), say("Server-side: answered by the fallback."),
        refuse("cyber"), say("Streamed by the fallback."),
        say("You asked something that triggered a refusal."),
    ])
    run("fallbacks.py", model, monkeypatch)
    out = capsys.readouterr().out
    assert "server-side: claude-opus-4-8" in out
    assert "--- fell back: claude-fable-5 -> claude-opus-4-8 ---" in out
    assert "Streamed by the fallback." in out
    assert "streaming: claude-opus-4-8" in out
    assert "non-streaming: claude-opus-4-8" in out
    assert [body["model"] for body in model.requests][:1] == ["claude-fable-5"]


def test_tool_search_example(monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    rich = types.ModuleType("rich")  # the example prints with rich, not installed here
    rich.print = builtins.print  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rich", rich)
    model = ScriptedModel([
        call("search_available_tools", keyword="weather"),
        call("get_weather", location="San Francisco, CA", units="f"),
        say("It is sunny in San Francisco, 68°F."),
    ])
    run("tools_runner_search_tool.py", model, monkeypatch)
    out = capsys.readouterr().out
    assert "Fetching weather for San Francisco, CA in f" in out
    assert "It is sunny in San Francisco" in out
    sent = [body for body in model.requests if "thread" not in body]
    assert [t.get("defer_loading") for t in sent[0]["tools"]] == [True, None]


def typed(lines: list[str]) -> Iterator[str]:
    yield from lines
    raise EOFError


@pytest.mark.parametrize("stream", [False])
def test_memory_example_clears_old_tool_results(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        stream: bool) -> None:
    monkeypatch.chdir(tmp_path)
    notes = "<xml><fact>prefers short answers about Python testing</fact></xml>\n" * 110
    steps: list[Any] = [call("memory", command="create", path="/memories/user.xml",
                             file_text=notes)]
    steps += [call("memory", command="view", path="/memories/user.xml") for _ in range(18)]
    steps += [say("Noted: short answers.")]
    lines = typed(["Remember that I prefer short answers.", "/memory_view", "/quit"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(lines))
    model = ScriptedModel(steps)
    run("memory/basic.py", model, monkeypatch)
    out = capsys.readouterr().out
    assert (tmp_path / "memory" / "memories" / "user.xml").read_text() == notes
    assert "[Memory tool called: view]" in out
    assert "🧹 [Context Management: clear_tool_uses_20250919 applied]" in out
    assert "Noted: short answers." in out
    assert "user.xml" in out.split("Memory contents:")[1]
