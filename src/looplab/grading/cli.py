"""`looplab-grade SUBMISSIONS_DIR`: grade a class's notebooks and write the gradebook.

    looplab-grade submissions/                          # gradebook.csv + gradebook.html here
    looplab-grade submissions/ --jobs 4 --timeout 120 --csv marks.csv --html marks.html
    looplab-grade submissions/ --points points.toml --lms-csv lms.csv --roster roster.csv \
        --feedback feedback/ --deadline 2026-12-01T23:59+08:00 --late-penalty 10
    looplab-grade submissions/ --update gradebook.csv --only ada,bob   # re-grade two
    looplab-grade submissions/ --memory 2048 --cpu-time 300 --submitted lms-times.csv
    looplab-grade submissions/ --roster roster.csv --lms canvas --lms-csv canvas.csv
    looplab-grade submissions/ --shard 0/8 --part parts/part-0.json    # on each machine
    looplab-grade merge parts/*.json --roster roster.csv --lms canvas --lms-csv canvas.csv
    looplab-grade --gradescope-root /autograder         # Gradescope's autograder
    python -m looplab.grade submissions/                # the same

Exit status: 0 when every notebook got a grade (whatever the grades), 2 when grading
could not run (no such folder, no lessons, no kernel), 130 when interrupted.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from .batch import grade_all, start_server
from .cli_options import limits_of, merge_parser, parser
from .gradescope import gradescope_submissions
from .kernels import GraderError
from .lateness import load_submitted
from .lessons import LessonsNotFound, default_folder, load_lessons
from .lms import load_roster
from .marks import Gradebook
from .outputs import gradebook, write_extras
from .points import load_points
from .progress import Progress
from .report import write_csv, write_html
from .results import POLICY, Grade
from .roster import match
from .runner import Options
from .shards import read_parts, shard_of, write_part
from .submissions import Submission, find_submissions
from .update import read_gradebook, update


def merge(argv: Sequence[str]) -> int:
    """`looplab-grade merge PARTS...`: 0, or 2 with one line on stderr."""
    args = merge_parser().parse_args(argv)
    try:
        book = read_parts(args.parts)
        students = load_roster(args.roster)
    except ValueError as e:
        print(f"looplab-grade merge: {e}", file=sys.stderr)
        return 2
    book = replace(book, roster=match(book.students(), students))
    _warn(book)
    args.update = args.gradescope_root = None
    _write(args, book)
    return 0


def _outputs(args: argparse.Namespace) -> tuple[Path | None, Path | None]:
    if args.csv is None and args.html is None and not (args.update or args.gradescope_root):
        return Path("gradebook.csv"), Path("gradebook.html")
    return args.csv, args.html


def _root(args: argparse.Namespace) -> Path:
    if args.gradescope_root is not None:
        return Path(args.gradescope_root) / "submission"
    return Path(args.submissions)


def _submissions(args: argparse.Namespace, root: Path) -> list[Submission]:
    if args.gradescope_root is not None:
        return gradescope_submissions(args.gradescope_root)
    found = find_submissions(root)
    if args.shard is not None:
        index, count = args.shard
        matched = match({s.student for s in found}, load_roster(args.roster))
        return [s for s in found if shard_of(matched.who(s.student).id, count) == index]
    if args.only:
        missing = args.only - {s.student for s in found}
        if missing:
            raise LessonsNotFound(f"no notebooks of {', '.join(sorted(missing))} under {root}")
        found = [s for s in found if s.student in args.only]
    if not found:
        raise LessonsNotFound(f"no notebooks (*.ipynb) under {root}")
    return found


def _grade(args: argparse.Namespace) -> Gradebook:
    root = _root(args)
    submissions = _submissions(args, root)
    folder = args.lessons or default_folder()
    limits = limits_of(args)
    server = start_server([root, folder], limits=limits)  # gets ready while lessons are read
    lessons = load_lessons(folder)
    if args.match_loose:
        lessons = replace(lessons, loose=True)
    options = Options(timeout_s=args.timeout, cell_timeout_s=args.cell_timeout,
                      limits=limits, unsandboxed=args.unsandboxed)  # fmt: skip
    progress = Progress(len(submissions))
    try:
        grades = grade_all(submissions, lessons, jobs=args.jobs, options=options,
                           on_grade=progress.update, server=server)  # fmt: skip
    finally:
        progress.close()
    book = gradebook(args, grades, lessons, submissions, root)
    if args.shard is None:  # a shard knows a part of the class: the merge says what is missing
        _warn(book)
    return book


def _warn(book: Gradebook) -> None:
    skipped = [f"{p} was not graded: {why}" for p, why in book.skipped]
    for line in [*book.roster.warnings(), *skipped]:
        print(f"looplab-grade: {line}", file=sys.stderr)


def _usage(args: argparse.Namespace) -> str | None:
    """What is wrong with the command line that argparse cannot see; None when nothing."""
    if args.submissions is None and args.gradescope_root is None:
        return "give SUBMISSIONS_DIR, or --gradescope-root DIR"
    if args.update is not None and not args.only:
        return "--update needs --only NAME[,NAME...]: the students to grade again"
    if (args.shard is None) != (args.part is None):
        return "--shard I/N and --part FILE go together: a shard writes its part, nothing else"
    if args.shard is not None and args.only:
        return "--shard grades a part of the class, --only a few students: give one of them"
    if args.shard is not None and (args.csv or args.html or args.lms_csv or args.feedback
                                   or args.update or args.gradescope_root):
        return ("a shard writes only its --part; `looplab-grade merge PARTS...` writes the "
                "gradebook, LMS CSV and feedback")
    root = _root(args)
    if not root.is_dir():
        return f"no folder {root}"
    load_points(args.points)  # a mistake in these files is told before grading, not after
    load_roster(args.roster)
    load_submitted(args.submitted)
    if args.update is not None:
        read_gradebook(args.update)
    return None


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # the same clean stop as Ctrl-C: every kernel is killed


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["merge"]:
        return merge(argv[1:])
    args = parser().parse_args(argv)
    try:
        wrong = _usage(args)
    except ValueError as e:  # a points file or roster the grader cannot use
        wrong = str(e)
    if wrong is not None:
        print(f"looplab-grade: {wrong}", file=sys.stderr)
        return 2
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                previous[name] = signal.signal(getattr(signal, name), _stop)
    try:
        book = _grade(args)
    except ImportError as e:
        print(f"looplab-grade needs ipykernel and jupyter_client ({e}): "
              "pip install 'looplab[lab]'", file=sys.stderr)  # fmt: skip
        return 2
    except (LessonsNotFound, GraderError) as e:
        if args.gradescope_root is not None and not gradescope_submissions(args.gradescope_root):
            book = Gradebook([], [])  # handed in nothing: Gradescope still gets a score of 0
        else:
            print(f"looplab-grade: {e}", file=sys.stderr)
            return 2
    except KeyboardInterrupt:
        print("looplab-grade: interrupted; no gradebook written", file=sys.stderr)
        return 130
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)
    try:
        _write(args, book)
    except ValueError as e:  # a gradebook --update will not merge into
        print(f"looplab-grade: {e}", file=sys.stderr)
        return 2
    return 0


def _write(args: argparse.Namespace, book: Gradebook) -> None:
    if getattr(args, "shard", None) is not None:
        write_part(book, args.part, args.shard)
        index, count = args.shard
        print(f"shard {index}/{count}: graded {len(book.marks)} notebooks of "
              f"{len(book.students())} students: {args.part}")  # fmt: skip
        return
    csv_path, html_path = _outputs(args)
    written = []
    if args.update is not None:
        update(args.update, book, args.only)
        written.append(f"{args.update} (updated)")
    if csv_path is not None:
        write_csv(book, csv_path)
        written.append(str(csv_path))
    if html_path is not None:
        write_html(book, html_path)
        written.append(str(html_path))
    written += write_extras(args, book)
    grades: list[Grade] = [m.grade for m in book.marks]
    counts = Counter(g.status for g in grades)
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    print(f"graded {len(grades)} notebooks ({summary}): {', '.join(written)}")
    if any(g.status not in ("passed", "failed") for g in grades):
        print(f"policy: {POLICY}")


if __name__ == "__main__":
    sys.exit(main())
