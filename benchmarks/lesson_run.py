"""How the benchmarks run one notebook under nbval, as `make pytest` runs each lesson: in a
fresh process, one worker, with the project's settings (`-c pyproject.toml`, so a notebook
outside the tree gets them too) and the nbval options the Makefile passes."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/nbval-sanitize.cfg"]


def nbval_command(path: Path | str) -> list[str]:
    """The command that runs `path` under nbval (run it with `cwd=ROOT`)."""
    return [sys.executable, "-m", "pytest", "-q", "-c", "pyproject.toml", "-p", "no:xdist",
            *NBVAL, str(path)]
