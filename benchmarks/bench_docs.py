"""`make docs` next to one nbval run of a lesson: `python benchmarks/bench_docs.py`.

`make docs` (tools/build_docs.py) turns every lesson, in every edition, into a page from its
stored outputs; nbval re-runs one lesson in a kernel and compares. Both run in fresh
processes, interleaved in one run of this script, so the ratio is fair on a busy machine.
The site is built from scratch each time (no Sphinx cache, as in a fresh clone); a rebuild
that reuses the cache is printed too. The goal: a build from scratch within 3x of the lesson.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from goals import judged
from lesson_run import nbval_command

GOAL = 3.0
ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "05_stop_gates.ipynb"  # mid-sized: six turn viewers, no plot


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def nbval() -> float:
    return seconds(nbval_command(LESSON))


def docs(tmp: Path) -> float:
    return seconds([sys.executable, "tools/build_docs.py", "--out", str(tmp / "site"),
                    "--work", str(tmp / "work")])


def main(rounds: int = 2) -> int:
    lesson = scratch = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(rounds):
            lesson = min(lesson, nbval())
            scratch = min(scratch, docs(Path(tmp) / f"scratch{i}"))
        cached = docs(Path(tmp) / f"scratch{rounds - 1}")
    ratio = scratch / lesson
    print(f"nbval, {LESSON.name}:        {lesson:5.1f} s")
    print(f"make docs, from scratch:        {scratch:5.1f} s")
    print(f"make docs, again (cached):      {cached:5.1f} s")
    print(judged("make docs/nbval lesson", ratio, GOAL))
    return 0


if __name__ == "__main__":
    sys.exit(main())
