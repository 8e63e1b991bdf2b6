"""Late work: when a notebook was handed in, how many days after the deadline, and the
penalty (`--deadline ISO8601`, `--late-penalty PERCENT` a day).

When handed in: the first line of `timestamp.txt` in the student's folder (nbgrader's
convention, `2026-12-01 17:05:00.123456 UTC`), else the notebook's modification time.
A day late is any part of a day: one second after the deadline is one day late.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
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


def handed_in(submission: Submission) -> datetime:
    """When `submission` was handed in (see the module's doc)."""
    if submission.folder is not None:
        stamp = submission.folder / TIMESTAMP
        try:
            if stamp.is_file() and not stamp.is_symlink():
                first = stamp.read_text(encoding="utf-8", errors="replace").splitlines()
                return parse_time(first[0] if first else "")
        except (OSError, ValueError):
            pass  # an unreadable stamp: the notebook's own time, then
    return datetime.fromtimestamp(Path(submission.path).stat().st_mtime, timezone.utc)


@dataclass(frozen=True)
class Lateness:
    deadline: datetime | None = None
    penalty: float = 0.0
    """Percent of a notebook's points taken off for each day late."""

    def days(self, submission: Submission) -> int:
        """Whole days late, any part of a day counted; 0 when on time or no deadline."""
        if self.deadline is None:
            return 0
        seconds = (handed_in(submission) - self.deadline).total_seconds()
        return max(0, math.ceil(seconds / 86400))

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
