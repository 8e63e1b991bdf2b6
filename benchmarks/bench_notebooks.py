"""Each lesson's nbval time next to an empty notebook's: `python benchmarks/bench_notebooks.py`.

Both run the same way (`pytest --nbval` in a fresh process, so kernel start-up and
pytest's own start are in both), in one run of this script, so the ratio is fair on a busy
machine too. The goal: every lesson within 3x of the empty notebook.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from goals import judged
from lesson_run import nbval_command

GOAL = 3.0
ROOT = Path(__file__).resolve().parents[1]


def nbval_seconds(path: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        nbval_command(path), cwd=ROOT, check=True, capture_output=True,
    )
    return time.perf_counter() - start


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.ipynb"
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("1 + 1", execution_count=1, outputs=[
            nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=1)
        ])]
        nbformat.write(nb, empty)
        baseline = min(nbval_seconds(empty) for _ in range(2))
    print(f"empty notebook: {baseline:.1f} s")
    worst = 0.0
    for lesson in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        ratio = nbval_seconds(lesson) / baseline
        worst = max(worst, ratio)
        print(f"{lesson.stem:<45} {ratio:4.1f}x")
    print(judged("worst lesson/empty notebook", worst, GOAL, digits=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
