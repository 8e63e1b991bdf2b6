"""`looplab.client()`: live only when asked for and possible, the fake otherwise.

No test sends a request: each checks which client `client()` built (its key, token and
base URL) and the one line it printed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anthropic
import pytest

import looplab
from looplab import MODEL, ScriptedModel, say
from looplab.connect import configured_model, settings
from looplab.core import loop
from looplab.fake.client import FAKE_API_KEY

FAKE_LINE = "looplab: using the offline fake API (set LOOPLAB_LIVE=1 to go live).\n"
KEY = "sk-ant-test-0123456789"


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LOOPLAB_LIVE", "LOOPLAB_API_KEY", "LOOPLAB_BASE_URL", "LOOPLAB_MODEL",
                 "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    # what tests/conftest.py sets, so a live client built here points at a closed port
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")


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
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    assert looplab.client().api_key == FAKE_API_KEY
    assert capsys.readouterr().out == FAKE_LINE


@pytest.mark.parametrize("value", ["1", "yes", "true", "on", "YES", " On ", "True"])
def test_every_word_for_on_goes_live(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("LOOPLAB_LIVE", value)
    client = looplab.client()
    assert client.api_key == KEY
    assert str(client.base_url) == "http://127.0.0.1:9"
    out = capsys.readouterr().out
    assert out == (
        f"looplab: using the LIVE API at http://127.0.0.1:9 with model {MODEL} "
        f"(LOOPLAB_LIVE={value}, key from ANTHROPIC_API_KEY); calls cost tokens.\n"
    )
    assert KEY not in out


@pytest.mark.parametrize("value", ["0", "no", "false", "off", "OFF", ""])
def test_every_word_for_off_stays_offline_and_says_what_it_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("LOOPLAB_LIVE", value)
    assert looplab.client().api_key == FAKE_API_KEY
    assert capsys.readouterr().out == (
        f"looplab: using the offline fake API (LOOPLAB_LIVE={value!r}; set LOOPLAB_LIVE=1 "
        "to go live).\n"
    )


@pytest.mark.parametrize("value", ["2", "live", "y es", "enable"])
def test_a_value_not_understood_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("LOOPLAB_LIVE", value)
    assert looplab.client().api_key == FAKE_API_KEY
    assert capsys.readouterr().out == (
        f"looplab: LOOPLAB_LIVE={value!r} is not understood (use 1 to go live, 0 to stay "
        "offline); using the offline fake API instead.\n"
    )


def test_live_without_a_key_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOOPLAB_LIVE", "1")
    assert looplab.client().api_key == FAKE_API_KEY
    assert capsys.readouterr().out == (
        "looplab: LOOPLAB_LIVE=1 but no key is set (ANTHROPIC_API_KEY, LOOPLAB_API_KEY or "
        "ANTHROPIC_AUTH_TOKEN); using the offline fake API instead.\n"
    )


@pytest.mark.parametrize("blank", ["", "   ", "\n"])
def test_a_blank_key_does_not_go_live(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], blank: str
) -> None:
    monkeypatch.setenv("LOOPLAB_LIVE", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", blank)
    assert looplab.client().api_key == FAKE_API_KEY
    assert capsys.readouterr().out == (
        "looplab: LOOPLAB_LIVE=1 but ANTHROPIC_API_KEY is blank; put the key in "
        "ANTHROPIC_API_KEY or LOOPLAB_API_KEY; using the offline fake API instead.\n"
    )


def test_an_auth_token_alone_goes_live_as_a_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOOPLAB_LIVE", "1")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token-abc")
    client = looplab.client()
    assert (client.api_key, client.auth_token) == (None, "token-abc")
    out = capsys.readouterr().out
    assert "key from ANTHROPIC_AUTH_TOKEN" in out and "token-abc" not in out
    assert "missing" not in out and "not set" not in out


def test_looplab_key_and_base_url_for_another_endpoint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOOPLAB_LIVE", "on")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("LOOPLAB_API_KEY", "provider-key-42")
    monkeypatch.setenv("LOOPLAB_BASE_URL", " https://llm.example.com/anthropic ")
    monkeypatch.setenv("LOOPLAB_MODEL", "claude-provider-7")
    client = looplab.client()
    assert client.api_key == "provider-key-42"
    assert str(client.base_url) == "https://llm.example.com/anthropic/"
    out = capsys.readouterr().out
    assert out == (
        "looplab: using the LIVE API at https://llm.example.com/anthropic/ with model "
        "claude-provider-7 (LOOPLAB_LIVE=on, key from LOOPLAB_API_KEY); calls cost tokens.\n"
    )
    assert "provider-key-42" not in out and KEY not in out


@pytest.mark.parametrize("url", ["llm.example.com", "ftp://llm.example.com", "https://"])
def test_a_base_url_that_is_not_http_stays_offline(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], url: str
) -> None:
    monkeypatch.setenv("LOOPLAB_LIVE", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("LOOPLAB_BASE_URL", url)
    assert looplab.client().api_key == FAKE_API_KEY
    assert capsys.readouterr().out == (
        f"looplab: LOOPLAB_BASE_URL={url!r} is not an http(s) URL (write it like "
        "https://api.example.com); using the offline fake API instead.\n"
    )


def test_a_scripted_model_is_not_dropped_silently_live(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOOPLAB_LIVE", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    client = looplab.client(ScriptedModel([say("never sent")]))
    assert client.api_key == KEY
    assert capsys.readouterr().out.rstrip().endswith(
        "Note: the scripted model ScriptedModel(steps=1, played=0) passed to looplab.client() "
        "is not used live."
    )
    with pytest.warns(UserWarning, match="is not used live"):
        looplab.client(ScriptedModel([]), verbose=False)
    assert capsys.readouterr().out == ""


def test_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    looplab.client(verbose=False)
    assert capsys.readouterr().out == ""


def test_settings_never_hold_the_key() -> None:
    found = settings({"LOOPLAB_LIVE": "1", "ANTHROPIC_API_KEY": KEY})
    assert found.live and found.key_variable == "ANTHROPIC_API_KEY"
    assert KEY not in repr(found)


def test_default_model_name() -> None:
    assert MODEL == loop.MODEL == "claude-opus-5-5"


@pytest.mark.parametrize(("value", "expected"), [
    ("my-model", "my-model"), ("  my-model\n", "my-model"), ("", loop.MODEL), ("  ", loop.MODEL),
])
def test_configured_model(value: str, expected: str) -> None:
    assert configured_model({"LOOPLAB_MODEL": value}) == expected


SENT_MODELS = """
import looplab
from looplab import ScriptedModel, say
model = ScriptedModel([say("a"), say("b"), say("c")])
client = looplab.fake_client(model)
task = [{"role": "user", "content": "x"}]
client.messages.create(model=looplab.MODEL, max_tokens=9, messages=task)
looplab.run_agent(client, "x")
run = looplab.AgentRun(client, "x")
run.step()
print(looplab.MODEL, *(body["model"] for body in model.requests))
"""


@pytest.mark.slow  # seconds
@pytest.mark.parametrize(("value", "expected"), [("claude-provider-7", "claude-provider-7"),
                                                 (None, loop.MODEL)])
def test_lessons_and_the_loop_send_the_configured_model(value: str | None, expected: str) -> None:
    """`looplab.MODEL` and the loop's default model come from LOOPLAB_MODEL at import."""
    env = {k: v for k, v in os.environ.items() if k != "LOOPLAB_MODEL"}
    if value is not None:
        env["LOOPLAB_MODEL"] = value
    out = subprocess.run([sys.executable, "-c", SENT_MODELS],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == [expected] * 4


# -- secrets are never shown, and no value raises ------------------------------------------

SECRET = "sk-ant-api03-PASTEDxKEYx0123456789abcdef"


def live_with(monkeypatch: pytest.MonkeyPatch, variable: str, value: str) -> anthropic.Anthropic:
    """`looplab.client()` with the switch on, a good key, and `variable` set to `value`."""
    monkeypatch.setenv("LOOPLAB_LIVE", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv(variable, value)
    return looplab.client()


@pytest.mark.parametrize("url", [
    f"http://alice:{SECRET}@llm.example.com:8080/v1",
    f"https://llm.example.com:8080/v1?token={SECRET}",
    f"https://llm.example.com:8080/v1#{SECRET}",
])
def test_a_base_url_is_shown_and_recorded_without_its_secrets(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    url: str,
) -> None:
    client = live_with(monkeypatch, "LOOPLAB_BASE_URL", url)
    out = capsys.readouterr().out
    assert out.startswith("looplab: using the LIVE API at http")
    assert "llm.example.com:8080/v1" in out and SECRET not in out
    path = tmp_path / "run.json"
    looplab.record(client, path)
    assert SECRET not in path.read_text(encoding="utf-8")
    assert looplab.Cassette.load(path).endpoint.rstrip("/").endswith("://llm.example.com:8080/v1")


@pytest.mark.parametrize(("variable", "value"), [
    ("LOOPLAB_LIVE", SECRET),
    ("LOOPLAB_BASE_URL", SECRET),
    ("LOOPLAB_BASE_URL", f"ftp://alice:{SECRET}@files.example.com/x?k={SECRET}"),
    # URLs that cannot be read: each stays offline with one line, never an exception
    *(("LOOPLAB_BASE_URL", url) for url in ["http://host:abc", "http://host\n.example.com",
                                            "http://[::1", "http://host:99999",
                                            "https://exa mple.com"]),
])
def test_a_value_that_cannot_be_used_is_one_line_that_never_shows_a_key(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], variable: str,
    value: str,
) -> None:
    assert live_with(monkeypatch, variable, value).api_key == FAKE_API_KEY
    out = capsys.readouterr().out
    assert out.startswith(f"looplab: {variable}") and out.count("\n") == 1
    assert out.endswith("; using the offline fake API instead.\n")
    assert SECRET not in out and "alice" not in out


def test_a_key_with_a_line_break_inside_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOOPLAB_LIVE", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-first\nsecond-half")
    assert looplab.client().api_key == FAKE_API_KEY
    assert capsys.readouterr().out == (
        "looplab: the key in ANTHROPIC_API_KEY holds a line break, a space or another "
        "character a key cannot have; set it again on one line; using the offline fake API "
        "instead.\n"
    )
