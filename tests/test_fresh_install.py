"""`pip install .` in a clean environment brings the SDK the lessons' outputs were made with:
pip resolves looplab's dependencies from the package index as for a fresh environment
(`--ignore-installed`, a dry run: nothing is installed) and reports what it would install."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_setup import SDK, _pinned

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def test_a_fresh_pip_install_brings_the_pinned_sdk(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    chosen = {item["metadata"]["name"].lower(): item["metadata"]["version"]
              for item in json.loads(report.read_text(encoding="utf-8"))["install"]}  # fmt: skip
    assert chosen[SDK] == _pinned(SDK)
