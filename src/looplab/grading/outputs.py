"""The gradebook's options beyond the long CSV and the HTML page, and writing what they ask
for: points, the LMS CSV, feedback pages, lateness, re-grading a few students, Gradescope.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .feedback import write_feedback
from .gradescope import write_results
from .lateness import Lateness, deadline_arg, load_submitted, penalty_arg
from .lessons import Lessons
from .lms import FORMATS, load_roster, write_lms_csv
from .marks import Gradebook, make_gradebook
from .points import DEFAULT_POINTS, load_points
from .results import Grade
from .roster import match
from .submissions import Submission, find_skipped
from .update import only_arg

_OPTIONS: tuple[tuple[str, Callable[[str], Any], str, str], ...] = (
    ("--points", Path, "FILE", "points per lesson and check, TOML (default: "
     f"{DEFAULT_POINTS:g} a lesson, split evenly over its checks)"),
    ("--lms-csv", Path, "FILE",
     "one row per student of the roster, in the layout of --lms (default: one column per "
     "lesson, then total, percent, late)"),
    ("--roster", Path, "FILE",
     "CSV with the columns id, name (folder, if you like), or Canvas's gradebook export: "
     "folders are matched by id, then name, in any case and with or without accents"),
    ("--feedback", Path, "DIR", "write one HTML page per student into DIR"),
    ("--deadline", deadline_arg, "ISO8601",
     "notebooks handed in later are late (the time from --submitted, else "
     "timestamp.txt, else the notebook's mtime)"),
    ("--submitted", Path, "FILE",
     "the LMS's export of submission times, CSV with the columns student,timestamp: "
     "trusted before the student's timestamp.txt"),
    ("--update", Path, "GRADEBOOK_CSV",
     "merge the students of --only, graded again, into this gradebook CSV"),
    ("--only", only_arg, "NAME[,NAME...]", "grade only these students (folder names)"),
    ("--gradescope-root", Path, "DIR",
     "Gradescope: grade DIR/submission, write DIR/results/results.json"),
)  # fmt: skip


def add_options(p: argparse.ArgumentParser) -> None:
    for flag, kind, metavar, help in _OPTIONS:
        p.add_argument(flag, type=kind, metavar=metavar, help=help)
    p.add_argument("--lms", choices=sorted(FORMATS), metavar="canvas|moodle|generic",
                   help="the LMS CSV's layout: Canvas's gradebook import, Moodle's CSV grade "
                   "import, or the long format (a row per student and lesson)")  # fmt: skip
    p.add_argument("--match-loose", action="store_true",
                   help="grade a notebook named like a lesson's title alone "
                   "(5_stop_gates.ipynb) as that lesson")  # fmt: skip
    p.add_argument("--late-penalty", type=penalty_arg, default=0.0, metavar="PERCENT",
                   help="percent of a notebook's points off per day late (default: 0)")  # fmt: skip


def gradebook(args: argparse.Namespace, grades: Sequence[Grade], lessons: Lessons,
              submissions: Sequence[Submission],
              root: Path | None = None) -> Gradebook:  # fmt: skip
    folders = {s.student for s in submissions}
    matched = match(folders, load_roster(args.roster))
    submitted = load_submitted(args.submitted)
    for folder, student in matched.by_folder.items():  # an LMS's times are by its ids
        for known in (student.id, student.name):
            if folder not in submitted and known in submitted:
                submitted[folder] = submitted[known]
    lateness = Lateness(args.deadline, args.late_penalty, submitted)
    skipped = find_skipped(root) if root is not None and args.gradescope_root is None else []
    return make_gradebook(grades, lessons, load_points(args.points), lateness, submissions,
                          matched, skipped)  # fmt: skip


def write_extras(args: argparse.Namespace, book: Gradebook) -> list[str]:
    """Write the LMS CSV, the feedback and Gradescope's results; what was written."""
    written = []
    if args.lms_csv is not None:
        write_lms_csv(book, args.lms_csv, args.lms)
        written.append(str(args.lms_csv))
    if args.feedback is not None:
        write_feedback(book, args.feedback)
        written.append(f"{args.feedback}/ ({len(book.students())} pages)")
    if args.gradescope_root is not None:
        written.append(str(write_results(book, args.gradescope_root)))
    return written
