"""`looplab-grade SUBMISSIONS_DIR`: grade a class's notebooks and write the gradebook.

    looplab-grade submissions/                          # gradebook.csv + gradebook.html here
    looplab-grade submissions/ --jobs 4 --timeout 120 --csv marks.csv --html marks.html
    python -m looplab.grade submissions/                # the same

Exit status: 0 when every notebook got a grade (whatever the grades), 2 when grading
could not run (no such folder, no lessons, no kernel), 130 when interrupted.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from .batch import default_jobs, grade_all, start_server
from .kernels import GraderError
from .lessons import LessonsNotFound, default_folder, load_lessons
from .progress import Progress
from .report import write_csv, write_html
from .results import Grade
from .runner import Options
from .submissions import find_submissions


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


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="looplab-grade",
        description="Grade every exercise notebook under SUBMISSIONS_DIR (one folder per "
        "student) with the lessons' own checks, and write a gradebook.",
    )
    p.add_argument("submissions", type=Path, metavar="SUBMISSIONS_DIR")
    p.add_argument(
        "--jobs",
        type=_jobs,
        default=default_jobs(),
        help="notebooks graded at once (default: one per core, %(default)s here)",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=300.0,
        metavar="S",
        help="seconds one notebook may take in all (default: %(default)g)",
    )
    p.add_argument(
        "--cell-timeout",
        type=_seconds,
        default=60.0,
        metavar="S",
        help="seconds one cell may take before it is interrupted (default: %(default)g)",
    )
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
    return p


def _outputs(args: argparse.Namespace) -> tuple[Path | None, Path | None]:
    if args.csv is None and args.html is None:
        return Path("gradebook.csv"), Path("gradebook.html")
    return args.csv, args.html


def _grade(args: argparse.Namespace) -> list[Grade]:
    submissions = find_submissions(args.submissions)
    if not submissions:
        raise LessonsNotFound(f"no notebooks (*.ipynb) under {args.submissions}")
    folder = args.lessons or default_folder()
    server = start_server([args.submissions, folder])  # gets ready while the lessons are read
    try:
        lessons = load_lessons(folder)
    except BaseException:
        server.close()
        raise
    options = Options(timeout_s=args.timeout, cell_timeout_s=args.cell_timeout)
    progress = Progress(len(submissions))
    try:
        return grade_all(submissions, lessons, jobs=args.jobs, options=options,
                         on_grade=progress.update, server=server)  # fmt: skip
    finally:
        progress.close()


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # the same clean stop as Ctrl-C: every kernel is killed


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not args.submissions.is_dir():
        print(f"looplab-grade: no folder {args.submissions}", file=sys.stderr)
        return 2
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                previous[name] = signal.signal(getattr(signal, name), _stop)
    try:
        grades = _grade(args)
    except ImportError as e:
        print(f"looplab-grade needs ipykernel and jupyter_client ({e}): "
              "pip install 'looplab[lab]'", file=sys.stderr)  # fmt: skip
        return 2
    except (LessonsNotFound, GraderError) as e:
        print(f"looplab-grade: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("looplab-grade: interrupted; no gradebook written", file=sys.stderr)
        return 130
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)
    _write(args, grades)
    return 0


def _write(args: argparse.Namespace, grades: list[Grade]) -> None:
    csv_path, html_path = _outputs(args)
    written = []
    if csv_path is not None:
        write_csv(grades, csv_path)
        written.append(str(csv_path))
    if html_path is not None:
        write_html(grades, html_path)
        written.append(str(html_path))
    counts = Counter(g.status for g in grades)
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    print(f"graded {len(grades)} notebooks ({summary}): {', '.join(written)}")


if __name__ == "__main__":
    sys.exit(main())
