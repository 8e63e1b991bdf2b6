"""Grading a class next to starting its kernels: `python benchmarks/bench_grade.py`.

Grades 30 copies of a solved exercise notebook (lesson 04's `run_agent` and its check
cell, as a student hands it in) with `looplab-grade --jobs 2`, and compares the wall time
with 30 runs of an empty notebook (a fresh kernel each, started and stopped by nbclient,
the way notebooks are usually run) divided by the 2 jobs. Everything the grading command
does is in its time: starting, reading the lessons, copying, the checks, cleaning up.
Both are measured in one run of this script, so the ratio is fair on a busy machine too.
The goal: at most 1.3x.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

GOAL = 1.3
COPIES = 30
JOBS = 2
ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "04_the_loop_by_hand.ipynb"
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION", "# TASK:")


def exercise() -> nbformat.NotebookNode:
    """A student's notebook for lesson 04: imports, the solved function, the check cell."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    solution = next("".join(c["source"]) for c in cells if MARKERS[0] in "".join(c["source"]))
    solved = "\n".join(
        line for line in solution.split("\n") if not line.strip().startswith(MARKERS)
    )
    check = "from looplab.lessons.exercises import check_agent_loop\n\ncheck_agent_loop(run_agent)"
    return nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import json\nimport time\n\nimport looplab"),
        nbformat.v4.new_code_cell(solved),
        nbformat.v4.new_code_cell(check, metadata={"tags": ["check", "raises-exception"]}),
    ])  # fmt: skip


def empty_run_seconds() -> float:
    start = time.perf_counter()
    NotebookClient(nbformat.v4.new_notebook(), kernel_name="python3").execute()
    return time.perf_counter() - start


def grade_seconds(folder: Path, book: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "looplab.grade", str(folder), "--jobs", str(JOBS),
         "--csv", str(book), "--html", str(book.with_suffix(".html"))],
        check=True, capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - start


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "submissions"
        for i in range(COPIES):
            (folder / f"student{i:02}").mkdir(parents=True)
            nbformat.write(exercise(), folder / f"student{i:02}" / LESSON.name)
        empty = min(empty_run_seconds() for _ in range(3))
        book = Path(tmp) / "gradebook.csv"
        graded = grade_seconds(folder, book)
        with book.open(newline="", encoding="utf-8") as f:
            statuses = {row["status"] for row in csv.DictReader(f)}
    if statuses != {"passed"}:
        print(f"the copies did not all pass: {sorted(statuses)}")
        return 1
    baseline = COPIES * empty / JOBS
    ratio = graded / baseline
    print(f"empty notebook run: {empty:.2f} s; {COPIES} x that / {JOBS} jobs: {baseline:.1f} s")
    print(f"looplab-grade, {COPIES} exercise notebooks, --jobs {JOBS}: {graded:.1f} s")
    verdict = "ok" if ratio <= GOAL else "over the goal"
    print(f"ratio: {ratio:.2f}x (goal <= {GOAL}x) {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
