"""`looplab.client()`: live only when asked for and possible, the fake otherwise."""

from __future__ import annotations

import pytest

import looplab
from looplab import MODEL, ScriptedModel, say
from looplab.fake.client import FAKE_API_KEY

FAKE_LINE = "looplab: using the offline fake API (set LOOPLAB_LIVE=1 to go live).\n"


def test_default_is_the_fake_with_the_lesson_script(capsys: pytest.CaptureFixture[str]) -> None:
    client = looplab.client(ScriptedModel([say("offline hello")]))
    assert capsys.readouterr().out == FAKE_LINE
    assert client.api_key == FAKE_API_KEY
    response = client.messages.create(
        model=MODEL, max_tokens=9, messages=[{"role": "user", "content": "hi"}]
    )
    assert response.content[0].text == "offline hello"  # type: ignore[union-attr]


def test_key_alone_does_not_go_live(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    assert looplab.client().api_key == FAKE_API_KEY
    assert capsys.readouterr().out == FAKE_LINE


@pytest.mark.parametrize("value", ["0", "true", "yes", ""])
def test_only_the_value_1_goes_live(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("LOOPLAB_LIVE", value)
    assert looplab.client().api_key == FAKE_API_KEY


def test_live_without_a_key_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOOPLAB_LIVE", "1")
    assert looplab.client().api_key == FAKE_API_KEY
    assert capsys.readouterr().out == (
        "looplab: LOOPLAB_LIVE=1 but ANTHROPIC_API_KEY is not set; "
        "using the offline fake API instead.\n"
    )


def test_live_with_a_key(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOOPLAB_LIVE", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    client = looplab.client(ScriptedModel([]))
    assert client.api_key == "sk-ant-test"
    assert capsys.readouterr().out == (
        "looplab: using the LIVE Anthropic API (LOOPLAB_LIVE=1); calls cost tokens.\n"
    )


def test_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    looplab.client(verbose=False)
    assert capsys.readouterr().out == ""


def test_default_model_name() -> None:
    assert MODEL == "claude-opus-5-5"
