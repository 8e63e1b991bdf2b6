"""Every test file is run by some make target: a file that none of `make test`, `make slow`
and `make browser` collects is a test nobody runs, green for ever.

The commands are the Makefile's own (`make -n` prints them without running them); pytest
collects with each one's options and paths (`--collect-only`), without the workers and the
lessons' options, which change how tests run, not which test files are collected.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # three collections of the whole suite: seconds each

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ("pytest", "slow", "browser")  # `make test` is lint, typecheck and `make pytest`
DROPPED = {"-n": 1, "--dist": 1, "--nbval": 0, "--nbval-current-env": 0,
           "--nbval-sanitize-with": 1, "--nbval-cell-timeout": 1}  # fmt: skip


def pytest_arguments(target: str) -> list[str]:
    """The arguments `make <target>` passes to pytest, without those in DROPPED."""
    printed = subprocess.run(["make", "-n", "--no-print-directory", target], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout  # fmt: skip
    commands = [shlex.split(line) for line in printed.splitlines() if " -m pytest " in line]
    assert len(commands) == 1, f"make {target} runs pytest {len(commands)} times: {printed}"
    words = commands[0][commands[0].index("pytest") + 1:]
    kept, skip = [], 0
    for word in words:
        if skip:
            skip -= 1
        elif word in DROPPED:
            skip = DROPPED[word]
        else:
            kept.append(word)
    return kept


def collected(arguments: list[str]) -> set[str]:
    """The test files pytest selects with `arguments` (after `-m`)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "--collect-only", "-q", *arguments],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {line.split("::", 1)[0] for line in done.stdout.splitlines() if "::" in line}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make, as the targets do")
def test_every_test_file_is_run_by_make_test_slow_or_browser() -> None:
    run = {target: collected(pytest_arguments(target)) for target in TARGETS}
    files = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")}
    assert "tests/exercises/test_exercises.py" in run["pytest"]  # not taken for a student copy
    assert __file__.endswith("test_collected.py") and "tests/test_collected.py" in run["slow"]
    nobody = sorted(files - set().union(*run.values()))
    assert nobody == [], f"no make target runs these test files: {nobody}"
