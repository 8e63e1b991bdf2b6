"""Grading a class next to starting its kernels: `python benchmarks/bench_grade.py`.

Grades 30 copies of a solved exercise (lesson 04's `run_agent`, as a student writes it in
the student copy) with `looplab-grade --jobs 2`, and compares the wall time with 30 runs of
an empty notebook (a fresh kernel each, started and stopped by nbclient, the way notebooks
are usually run) divided by the 2 jobs. The graded notebook holds what the exercise needs:
the imports cell, the cells defining the functions the solution calls (`run_tool`), the
solution and the check. Everything the grading command does is in its time: starting,
reading the lessons, copying, the checks, cleaning up. The goal: at most 1.3x.

A second line grades 30 whole student copies (every cell of the lesson runs, plots and
widgets included) and compares that with running the same copy 30 times with nbclient,
divided by the jobs: what grading adds to the lesson's own work.

Every figure is measured in one run of this script, so the ratios are fair on a busy
machine too.
"""

from __future__ import annotations

import ast
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from goals import judged
from nbclient import NotebookClient

GOAL = 1.3
COPIES = 30
JOBS = 2
ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "04_the_loop_by_hand.ipynb"
STUDENT_COPY = ROOT / "notebooks" / "exercises" / LESSON.name
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION", "# TASK:")


def student_copy() -> nbformat.NotebookNode:
    """Lesson 04's student copy as a student hands it in: the stub replaced by the solution."""
    solutions = {
        c["id"]: "\n".join(
            line
            for line in "".join(c["source"]).split("\n")
            if not line.strip().startswith(MARKERS)
        )
        for c in json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
        if MARKERS[0] in "".join(c["source"])
    }
    copy = nbformat.read(STUDENT_COPY, as_version=4)
    solved = [c for c in copy.cells if c.get("id") in solutions]
    assert solved, "the student copy has no stub to fill"
    for cell in solved:
        cell.source = solutions[cell["id"]]
    return copy


def exercise() -> nbformat.NotebookNode:
    """The cells the exercise needs: imports, the functions the solution calls, it, the check."""
    copy = student_copy()
    code = [c for c in copy.cells if c.cell_type == "code"]
    solution = next(
        i for i, c in enumerate(code) if "check" in code[i + 1].metadata.get("tags", [])
    )
    used = {n.id for n in ast.walk(ast.parse(code[solution].source)) if isinstance(n, ast.Name)}

    def defines_used(cell: nbformat.NotebookNode) -> bool:
        tree = ast.parse(cell.source) if not cell.source.startswith("%") else ast.Module([], [])
        return any(isinstance(n, ast.FunctionDef) and n.name in used for n in tree.body)

    copy.cells = [code[0], *filter(defines_used, code[1:solution]), *code[solution : solution + 2]]
    return copy


def run_seconds(notebook: nbformat.NotebookNode) -> float:
    start = time.perf_counter()
    NotebookClient(
        notebook,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT / "notebooks" / "exercises")}},
    ).execute()
    return time.perf_counter() - start


def grade_seconds(folder: Path, book: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "looplab.grade", str(folder), "--jobs", str(JOBS),
         "--csv", str(book), "--html", str(book.with_suffix(".html"))],
        check=True, capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - start


def graded_seconds(notebook: nbformat.NotebookNode, tmp: Path) -> float:
    """Wall time of `looplab-grade` over 30 copies of `notebook`, which must all pass."""
    folder = tmp / "submissions"
    shutil.rmtree(folder, ignore_errors=True)
    for i in range(COPIES):
        (folder / f"student{i:02}").mkdir(parents=True)
        nbformat.write(notebook, folder / f"student{i:02}" / LESSON.name)
    book = tmp / "gradebook.csv"
    seconds = grade_seconds(folder, book)
    with book.open(newline="", encoding="utf-8") as f:
        statuses = {row["status"] for row in csv.DictReader(f)}
    if statuses != {"passed"}:
        raise SystemExit(f"the copies did not all pass: {sorted(statuses)}")
    return seconds


def line(what: str, graded: float, one_run: float, baseline: str) -> None:
    ratio = graded / (COPIES * one_run / JOBS)
    print(f"{what}: one {baseline} run {one_run:.2f} s; {COPIES} graded with --jobs {JOBS}: "
          f"{graded:.1f} s; " + judged(what, ratio, GOAL))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        empty = min(run_seconds(nbformat.v4.new_notebook()) for _ in range(3))
        line("exercise notebook", graded_seconds(exercise(), Path(tmp)), empty, "empty-notebook")
        whole = student_copy()
        alone = min(run_seconds(nbformat.from_dict(whole)) for _ in range(2))
        line("whole student copy", graded_seconds(whole, Path(tmp)), alone, "same-notebook")
    return 0


if __name__ == "__main__":
    sys.exit(main())
