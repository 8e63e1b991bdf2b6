"""The gradebook's options beyond the long CSV and the HTML page, and writing what they ask
for: points, the LMS CSV, feedback pages, lateness, re-grading a few students, Gradescope.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from .feedback import write_feedback
from .gradescope import write_results
from .lateness import Lateness, deadline_arg, penalty_arg
from .lessons import Lessons
from .lms import load_roster, write_lms_csv
from .marks import Gradebook, make_gradebook
from .points import DEFAULT_POINTS, load_points
from .results import Grade
from .submissions import Submission
from .update import only_arg


def add_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--points",
        type=Path,
        metavar="FILE",
        help="points per lesson and check, TOML (default: "
        f"{DEFAULT_POINTS:g} a lesson, split evenly over its checks)",
    )
    p.add_argument(
        "--lms-csv",
        type=Path,
        metavar="FILE",
        help="one row per student, one column per lesson: for Canvas or Moodle",
    )
    p.add_argument(
        "--roster",
        type=Path,
        metavar="FILE",
        help="CSV with the columns id, name, folder: the LMS CSV's ids and names",
    )
    p.add_argument(
        "--feedback", type=Path, metavar="DIR", help="write one HTML page per student into DIR"
    )
    p.add_argument(
        "--deadline",
        type=deadline_arg,
        metavar="ISO8601",
        help="notebooks handed in later are late (timestamp.txt, else mtime)",
    )
    p.add_argument(
        "--late-penalty",
        type=penalty_arg,
        default=0.0,
        metavar="PERCENT",
        help="percent of a notebook's points off per day late (default: 0)",
    )
    p.add_argument(
        "--update",
        type=Path,
        metavar="GRADEBOOK_CSV",
        help="merge the students of --only, graded again, into this gradebook CSV",
    )
    p.add_argument(
        "--only",
        type=only_arg,
        metavar="NAME[,NAME...]",
        help="grade only these students (folder names)",
    )
    p.add_argument(
        "--gradescope-root",
        type=Path,
        metavar="DIR",
        help="Gradescope: grade DIR/submission, write DIR/results/results.json",
    )
    # fmt: skip


def gradebook(args: argparse.Namespace, grades: Sequence[Grade], lessons: Lessons,
              submissions: Sequence[Submission]) -> Gradebook:  # fmt: skip
    lateness = Lateness(args.deadline, args.late_penalty)
    return make_gradebook(grades, lessons, load_points(args.points), lateness, submissions)


def write_extras(args: argparse.Namespace, book: Gradebook) -> list[str]:
    """Write the LMS CSV, the feedback and Gradescope's results; what was written."""
    written = []
    if args.lms_csv is not None:
        write_lms_csv(book, args.lms_csv, load_roster(args.roster))
        written.append(str(args.lms_csv))
    if args.feedback is not None:
        write_feedback(book, args.feedback)
        written.append(f"{args.feedback}/ ({len(book.students())} pages)")
    if args.gradescope_root is not None:
        written.append(str(write_results(book, args.gradescope_root)))
    return written
