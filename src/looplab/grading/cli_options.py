"""`looplab-grade`'s command line: its options, their checks and their help."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from .batch import default_jobs
from .limits import Limits
from .lms import FORMATS
from .outputs import add_options
from .shards import shard_arg


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of jobs, 1 or more")
    return int(text)


SUBMISSIONS_HELP = (
    "the class's notebooks, one folder per student named after them "
    "(SUBMISSIONS_DIR/ada/05_stop_gates.ipynb), each graded as the lesson its file is named "
    "after (ada_05_stop_gates.ipynb too); a timestamp.txt in a student's folder says when it "
    "was handed in (with --deadline). Not needed with --gradescope-root"
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="looplab-grade",
        description="Grade every exercise notebook under SUBMISSIONS_DIR (one folder per "
        "student) with the lessons' own checks, and write a gradebook. `looplab-grade merge "
        "PARTS...` writes the gradebook of a class graded in shards (--shard).",
    )
    p.add_argument("submissions", type=Path, metavar="SUBMISSIONS_DIR", nargs="?",
                   help=SUBMISSIONS_HELP)
    p.add_argument("--jobs", type=_jobs, default=default_jobs(),
                   help="notebooks graded at once (default: one per core, %(default)s here)")
    p.add_argument("--timeout", type=_seconds, default=300.0, metavar="S",
                   help="seconds one notebook may take in all (default: %(default)g)")
    p.add_argument("--cell-timeout", type=_seconds, default=60.0, metavar="S",
                   help="seconds one cell may take before it is interrupted "
                   "(default: %(default)g)")
    p.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="gradebook CSV (default: gradebook.csv here, unless only --html is given)",
    )
    p.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="gradebook HTML page (default: gradebook.html here, unless only --csv is given)",
    )
    p.add_argument(
        "--lessons",
        type=Path,
        metavar="DIR",
        help="the lessons to grade against (default: the repository's notebooks/)",
    )
    add_options(p)
    add_sandbox_options(p)
    p.add_argument("--shard", type=shard_arg, metavar="I/N",
                   help="grade only shard I of N (0 <= I < N; students by a hash of their "
                   "id) and write it to --part; merge the parts with `looplab-grade merge`")
    p.add_argument("--part", type=Path, metavar="FILE", help="where --shard writes its part")
    return p


def merge_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="looplab-grade merge",
        description="Build the gradebook, LMS CSV, HTML page and feedback of a class graded "
        "in shards (--shard I/N --part FILE) from all its parts, as one run writes them.",
    )
    p.add_argument("parts", type=Path, nargs="+", metavar="PART")
    for flag, metavar in (("--csv", "FILE"), ("--html", "FILE"), ("--lms-csv", "FILE"),
                          ("--roster", "FILE"), ("--feedback", "DIR")):  # fmt: skip
        p.add_argument(flag, type=Path, metavar=metavar)
    p.add_argument("--lms", choices=sorted(FORMATS), metavar="canvas|moodle|generic")
    return p


def _whole(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number, 1 or more")
    return int(text)


def add_sandbox_options(p: argparse.ArgumentParser) -> None:
    """What each student's kernel may use (`limits.py`), and grading without a sandbox."""
    d = Limits()
    p.add_argument("--memory", type=_whole, default=d.memory_mib, metavar="MIB",
                   help="memory (address space) of each kernel (default: %(default)s)")
    p.add_argument("--file-size", type=_whole, default=d.file_mib, metavar="MIB",
                   help="largest file a kernel may write (default: %(default)s)")
    p.add_argument("--processes", type=_whole, default=d.processes, metavar="N",
                   help="processes and threads of each kernel (default: %(default)s)")
    p.add_argument("--open-files", type=_whole, default=d.open_files, metavar="N",
                   help="open files and sockets of each kernel (default: %(default)s)")
    p.add_argument("--cpu-time", type=_whole, default=d.cpu_s, metavar="S",
                   help="CPU seconds of each kernel in all (default: %(default)s)")
    p.add_argument("--unsandboxed", action="store_true",
                   help="grade more than one student even where bubblewrap cannot start: "
                   "each student's code then runs as you, and can read the other students' "
                   "notebooks and the solutions and change another student's grade")  # fmt: skip


def limits_of(args: argparse.Namespace) -> Limits:
    return Limits(memory_mib=args.memory, file_mib=args.file_size, processes=args.processes,
                  open_files=args.open_files, cpu_s=args.cpu_time)  # fmt: skip
