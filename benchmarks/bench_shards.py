"""A class graded in shards and merged, next to one run and to starting kernels:
`python benchmarks/bench_shards.py`.

Grades 30 copies of the exercise notebook of bench_grade.py three ways, each measured in
this one run so the ratios are fair on a busy machine: an empty notebook run 30 times by
nbclient (a fresh kernel each) divided by 2 (the floor: starting kernels, two at a time);
one `looplab-grade --jobs 2`; and 2 shards (`--shard I/2 --part`, `--jobs 1` each) run as
two processes at once, the way two pods of an Indexed Job run, then `looplab-grade merge`.
Per notebook: seconds of wall time / the notebooks graded, for the one run, each shard,
and all shards with the merge; the merge alone in seconds. The merged gradebook must be
byte for byte the one run's. The goal: shards and merge at most 1.15x one run (splitting
costs a second grader start, no more); bench_grade.py holds one run's own goal against
the kernels' floor.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat
from bench_grade import COPIES, JOBS, LESSON, exercise, run_seconds
from goals import judged

SHARDS = 2
GOAL_SHARDS = 1.15
GRADE = [sys.executable, "-m", "looplab.grade"]
OUT = ["--csv", "gradebook.csv", "--html", "gradebook.html", "--lms", "generic",
       "--lms-csv", "lms.csv"]  # fmt: skip


def _class(folder: Path) -> None:
    notebook = exercise()
    for i in range(COPIES):
        (folder / f"student{i:02}").mkdir(parents=True)
        nbformat.write(notebook, folder / f"student{i:02}" / LESSON.name)


def one_run(folder: Path, out: Path) -> float:
    out.mkdir()
    start = time.perf_counter()
    subprocess.run([*GRADE, str(folder.resolve()), "--jobs", str(JOBS), *OUT],
                   cwd=out, check=True, capture_output=True)  # fmt: skip
    return time.perf_counter() - start


def sharded(folder: Path, out: Path) -> tuple[float, list[tuple[float, int]], float]:
    """(Wall time of all, (seconds, notebooks) of each shard, seconds of the merge)."""
    out.mkdir()
    start = time.perf_counter()
    pods = [subprocess.Popen([*GRADE, str(folder.resolve()), "--jobs", "1",
                              "--shard", f"{i}/{SHARDS}", "--part", f"part-{i}.json"],
                             cwd=out, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for i in range(SHARDS)]  # fmt: skip
    ended: dict[int, float] = {}

    def wait(i: int) -> None:
        pods[i].wait()
        ended[i] = time.perf_counter()

    waiters = [threading.Thread(target=wait, args=(i,)) for i in range(SHARDS)]
    for w in waiters:
        w.start()
    for w in waiters:
        w.join()
    shards = []
    for i, pod in enumerate(pods):
        out_text = pod.stdout.read().decode() if pod.stdout else ""
        if pod.returncode:
            err = pod.stderr.read().decode(errors="replace") if pod.stderr else ""
            raise SystemExit(f"shard {i} failed: {err[-400:]}")
        graded = int(out_text.split("graded ", 1)[1].split()[0])  # "shard 0/2: graded 14 ..."
        shards.append((ended[i] - start, graded))
    merging = time.perf_counter()
    parts = [f"part-{i}.json" for i in range(SHARDS)]
    subprocess.run([*GRADE, "merge", *parts, *OUT], cwd=out, check=True, capture_output=True)
    done = time.perf_counter()
    return done - start, shards, done - merging


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _class(root / "class")
        empty = min(run_seconds(nbformat.v4.new_notebook()) for _ in range(3))
        floor = COPIES * empty / JOBS
        one = one_run(root / "class", root / "one")
        split, shards, merge = sharded(root / "class", root / "shards")
        for name in ("gradebook.csv", "gradebook.html", "lms.csv"):
            if (root / "one" / name).read_bytes() != (root / "shards" / name).read_bytes():
                raise SystemExit(f"the merged {name} is not the one run's")
        print(f"kernels' floor: an empty notebook {empty:.2f} s, {COPIES} at {JOBS} at once "
              f"{floor:.1f} s ({floor / COPIES:.2f} s a notebook)")  # fmt: skip
        print(f"one run (--jobs {JOBS}): {one:.1f} s ({one / COPIES:.2f} s a notebook, "
              f"{one / floor:.2f}x the floor)")  # fmt: skip
        for i, (seconds, graded) in enumerate(shards):
            print(f"shard {i}/{SHARDS} (--jobs 1): {graded} notebooks in {seconds:.1f} s "
                  f"({seconds / max(graded, 1):.2f} s a notebook)")  # fmt: skip
        print(f"merge: {merge:.2f} s")
        print(f"{SHARDS} shards at once and merge: {split:.1f} s ({split / COPIES:.2f} s a "
              "notebook), the same files byte for byte; "
              + judged("shards+merge / one run", split / one, GOAL_SHARDS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
