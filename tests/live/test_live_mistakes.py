"""A user's mistake with a cassette shows in a notebook as its one line, not a traceback:
the README's `record(...)` cell run twice, a cassette that is not one, a file that is
missing. Run here in a real IPython shell, as a notebook cell runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

import looplab
from looplab import Cassette, ScriptedModel, fake_client, record, say
from looplab.errors import Mistake


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    ipython = InteractiveShell.instance(colors="nocolor")
    yield ipython
    InteractiveShell.clear_instance()


def shown(shell: InteractiveShell, capsys: pytest.CaptureFixture[str], cell: str) -> list[str]:
    """The lines a notebook would show for `cell`'s error."""
    capsys.readouterr()
    result = shell.run_cell(cell)
    assert result.error_in_exec is not None, "the cell was meant to fail"
    out = capsys.readouterr()
    return [line for line in (out.out + out.err).splitlines() if line.strip()]


def test_recording_over_a_cassette_is_one_line(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "login-run.json"
    record(fake_client(ScriptedModel([say("hi")])), path).messages.create(
        model=looplab.MODEL, max_tokens=9, messages=[{"role": "user", "content": "hi"}])
    shell.user_ns.update(looplab=looplab, path=path)
    lines = shown(shell, capsys, "looplab.record(looplab.client(), path)")
    assert lines[-2:] == ["looplab: using the offline fake API (set LOOPLAB_LIVE=1 to go live).",
                          f"WouldReplace: {path} exists: record(..., overwrite=True) replaces it, "
                     "or name another file"]


@pytest.mark.parametrize("text, reason", [
    ("", "is not a cassette: it is empty"),
    ("null\n", "is not a cassette"),
    ('{"format": "other"}\n', "is not a cassette: its 'format' is not"),
])
def test_a_file_that_is_not_a_cassette_is_one_line(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    text: str, reason: str,
) -> None:
    path = tmp_path / "odd.json"
    path.write_text(text, encoding="utf-8")
    shell.user_ns.update(Cassette=Cassette, path=path)
    lines = shown(shell, capsys, "Cassette.load(path)")
    assert len(lines) == 1 and lines[0].startswith("NotACassette: ") and reason in lines[0]


def test_a_missing_cassette_is_one_line(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    shell.user_ns.update(Cassette=Cassette, path=tmp_path / "none.json")
    assert shown(shell, capsys, "Cassette.load(path)") == [
        f"NoCassette: no cassette at {tmp_path / 'none.json'}: record one first"]


def test_the_mistakes_are_still_the_errors_a_caller_catches(tmp_path: Path) -> None:
    (tmp_path / "odd.json").write_text("null\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        Cassette.load(tmp_path / "odd.json")
    assert isinstance(caught.value, Mistake)
    with pytest.raises(FileNotFoundError):
        Cassette.load(tmp_path / "none.json")


def test_any_other_error_keeps_its_traceback(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = shown(shell, capsys, "def f():\n    raise ValueError('a bug')\nf()")
    assert lines[-1] == "ValueError: a bug" and len(lines) > 2
