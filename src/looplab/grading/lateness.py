"""Late work: when a notebook was handed in, how many days after the deadline, and the
penalty (`--deadline ISO8601`, `--late-penalty PERCENT` a day).

When handed in, from the source a teacher trusts first: the LMS's export of submission
times (`--submitted FILE`, a CSV with the columns `student` and `timestamp`: Canvas and
Moodle both export one), then the first line of `timestamp.txt` in the student's folder
(nbgrader's convention, `2026-12-01 17:05:00.123456 UTC`; written by whoever wrote the
folder, so the student may have), then the notebook's modification time. The feedback
says which one was used. A day late is any part of a day: one second after the deadline
is one day late.
"""

from __future__ import annotations

import argparse
import csv
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .submissions import Submission

TIMESTAMP = "timestamp.txt"


def parse_time(text: str) -> datetime:
    """An ISO 8601 time; without a zone it is UTC. `ValueError` when it is not one."""
    text = text.strip()
    if text.endswith(" UTC"):
        text = text[:-4]
    when = datetime.fromisoformat(text)
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def deadline_arg(text: str) -> datetime:
    try:
        return parse_time(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO 8601 time (2026-12-01T23:59:00+08:00)"
        ) from None


def penalty_arg(text: str) -> float:
    try:
        value = float(text.removesuffix("%"))
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 <= value <= 100):
        raise argparse.ArgumentTypeError(f"{text!r} is not a percent a day, 0 to 100")
    return value


FROM_LMS = "the LMS export (--submitted)"
FROM_STAMP = TIMESTAMP
FROM_MTIME = "the notebook's modification time"


def load_submitted(path: Path | None) -> dict[str, datetime]:
    """{student: when handed in} from the LMS's export (`--submitted FILE`); a student with
    several rows counts at the latest. `ValueError`, saying what is wrong, for a file that
    is not such a CSV."""
    if path is None:
        return {}
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise ValueError(f"--submitted {path}: cannot read it ({e})") from None
    found: dict[str, datetime] = {}
    for number, row in enumerate(rows, 2):
        student, stamp = (row.get("student") or "").strip(), row.get("timestamp") or ""
        if not student:
            raise ValueError(f"--submitted {path}: line {number} has no student (the "
                             "columns are student,timestamp)")  # fmt: skip
        try:
            when = parse_time(stamp)
        except ValueError:
            raise ValueError(f"--submitted {path}: line {number}: {stamp!r} is not an ISO "
                             "8601 time (2026-12-01T23:59:00+08:00)") from None  # fmt: skip
        found[student] = max(when, found.get(student, when))
    return found


def handed_in(submission: Submission,
              submitted: Mapping[str, datetime] | None = None) -> tuple[datetime, str]:  # fmt: skip
    """When `submission` was handed in, and where that came from (see the module's doc)."""
    if submitted and submission.student in submitted:
        return submitted[submission.student], FROM_LMS
    if submission.folder is not None:
        stamp = submission.folder / TIMESTAMP
        try:
            if stamp.is_file() and not stamp.is_symlink():
                first = stamp.read_text(encoding="utf-8", errors="replace").splitlines()
                return parse_time(first[0] if first else ""), FROM_STAMP
        except (OSError, ValueError):
            pass  # an unreadable stamp: the notebook's own time, then
    mtime = Path(submission.path).stat().st_mtime
    return datetime.fromtimestamp(mtime, timezone.utc), FROM_MTIME


@dataclass(frozen=True)
class Lateness:
    deadline: datetime | None = None
    penalty: float = 0.0
    """Percent of a notebook's points taken off for each day late."""
    submitted: Mapping[str, datetime] = field(default_factory=dict)
    """The LMS's submission times (`load_submitted`), trusted before anything else."""

    def days(self, submission: Submission) -> int:
        """Whole days late, any part of a day counted; 0 when on time or no deadline."""
        return self.when(submission)[0]

    def when(self, submission: Submission) -> tuple[int, str]:
        """(Whole days late, when it was handed in and by which source, in words); (0, "")
        without a deadline."""
        if self.deadline is None:
            return 0, ""
        at, source = handed_in(submission, self.submitted)
        seconds = (at - self.deadline).total_seconds()
        shown = at.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        return max(0, math.ceil(seconds / 86400)), f"handed in {shown}, from {source}"

    def keep(self, days: int) -> float:
        """The share of its points a notebook `days` late keeps."""
        return max(0.0, 1 - days * self.penalty / 100)

    def note(self, days: int) -> str:
        """One line for the gradebook and the feedback; empty when on time."""
        if days == 0:
            return ""
        unit = "day" if days == 1 else "days"
        cut = f", {min(100.0, days * self.penalty):g}% off" if self.penalty else ""
        return f"{days} {unit} late{cut}"
