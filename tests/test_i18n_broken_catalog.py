"""A broken Chinese catalog (truncated, corrupt, missing) makes looplab speak English with
one warning naming the file, instead of failing every run with an error that blames
something else."""

from __future__ import annotations

import struct
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import looplab
from looplab import i18n, run_agent
from looplab.fake import ScriptedModel, fake_client, say


@pytest.fixture
def broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           request: pytest.FixtureRequest) -> Iterator[Path]:
    good = i18n._mo_file("zh-CN").read_bytes()
    mo = tmp_path / "looplab.mo"
    # the right magic number, then 5 messages whose table lies past the end
    corrupt = b"\xde\x12\x04\x95" + struct.pack("<4I", 0, 5, 9_999, 19_999) + b"\0" * 20
    mo.write_bytes({"truncated": good[: len(good) // 3], "corrupt": corrupt,
                    "empty": b""}[request.param])
    monkeypatch.setattr(i18n, "_mo_file", lambda language: mo)
    monkeypatch.setattr(i18n, "_catalogs", {})
    before = looplab.set_language("zh-CN")
    yield mo
    looplab.set_language(before)


@pytest.mark.parametrize("broken", ["truncated", "corrupt", "empty"], indirect=True)
def test_a_broken_catalog_speaks_english_with_one_warning_naming_the_file(broken: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert i18n._("the run was interrupted") == "the run was interrupted"
        result = run_agent(fake_client(ScriptedModel([say("hi")])), "hello")
        assert i18n._("the run was interrupted") == "the run was interrupted"
    assert result.done, result
    mine = [w for w in caught if "catalog" in str(w.message)]
    assert len(mine) == 1 and str(broken) in str(mine[0].message)
