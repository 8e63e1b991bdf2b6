"""The tests of `make test` next to one lesson under nbval: `LOOPLAB_BENCH_SUITE=1 python
benchmarks/bench_suite.py`.

`make pytest` runs the unit tests and every lesson (both editions) under nbval, on every
core with pytest-xdist; one lesson is `pytest --nbval` over lesson 05 in a fresh process,
in one worker, kernel start-up and pytest's own start included. The lesson runs once
before the suite and once after, and its time is the mean of the two, all in one run of
this script, so the ratio is fair on a busy machine too. The goal: `make pytest` within
20x of one lesson. The tests marked slow and browser are not part of `make pytest`:
`make slow` and `make browser` run them (CI runs all three).

The suite takes a minute or more, so `make bench` skips this benchmark: it runs only when the
environment variable LOOPLAB_BENCH_SUITE is 1, and otherwise prints how to run it and exits
with 0.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from goals import judged
from lesson_run import nbval_command

GOAL = 20.0
ROOT = Path(__file__).resolve().parents[1]
LESSON = "notebooks/05_stop_gates.ipynb"  # mid-sized: six turn viewers, no plot
SWITCH = "LOOPLAB_BENCH_SUITE"


def seconds(command: list[str]) -> tuple[float, str]:
    """Wall time of `command` and the last line it printed; a failure ends the benchmark."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    lines = done.stdout.strip().splitlines() or [""]
    if done.returncode != 0:
        print("\n".join(lines[-30:]), done.stderr[-3000:], sep="\n")
        raise SystemExit(f"{' '.join(command)} failed with {done.returncode}: nothing to compare")
    return elapsed, lines[-1].strip("= ")


def lesson() -> float:
    return seconds(nbval_command(LESSON))[0]


def main() -> int:
    if os.environ.get(SWITCH) != "1":
        print(f"skipped: make pytest takes a minute or more; run it with {SWITCH}=1 "
              "python benchmarks/bench_suite.py")
        return 0
    # make's install step first and untimed: a stale .venv is not part of the suite's time
    subprocess.run(["make", "-s", ".venv/.looplab-installed"], cwd=ROOT, check=True)
    before = lesson()
    suite, summary = seconds(["make", "pytest"])
    after = lesson()
    one = (before + after) / 2
    ratio = suite / one
    print(f"one lesson under nbval ({Path(LESSON).name}): {one:.1f} s "
          f"(before the suite {before:.1f} s, after {after:.1f} s)")
    print(f"make pytest: {suite:.1f} s ({summary})")
    print(judged("make pytest/one lesson", ratio, GOAL, digits=1))
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
