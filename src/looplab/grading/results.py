"""What grading one notebook gives: a status and one row per check, from the checks' own
results (never from what the notebook printed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .lessons import Step
from .remote import CELL_CHECK

STATUSES = ("passed", "failed", "timeout", "crashed", "invalid", "error")
"""passed: every check passed. failed: some did not. timeout: a cell ran over its time
(interrupted, or killed when the interrupt did not stop it) or the notebook ran over its
deadline. crashed: the kernel died (os._exit, a segfault, quit()). invalid: not a
notebook the grader can run (not JSON, too many cells, no lesson of that name), or an
answer imported from looplab. error: the grader could not start a kernel, or the
notebook ran into one of its kernel's limits (`limits.py`) or flooded the grader's socket
(`wire.py`), the reason naming which."""

COUNTED = ("passed", "failed")
POLICY = (
    "A notebook that timed out, crashed, is invalid or could not be graded scores 0 of its "
    "lesson's checks, whatever checks passed before it stopped (its scorecard still shows "
    "them); checks_total is always the lesson's number of checks. A notebook named like no "
    "lesson counts toward no lesson (0 of 0)."
)
"""The gradebook's policy for the statuses that are not `passed` or `failed`."""

Entries = dict[str, tuple[Any, str]]
"""What the grader's checkers reported: {step label: (rows or None, the error)}."""


@dataclass(frozen=True)
class Row:
    """One check of one exercise."""

    exercise: str
    name: str
    passed: bool
    hint: str = ""


@dataclass(frozen=True)
class Grade:
    """One submitted notebook, graded."""

    student: str
    notebook: str
    status: str
    rows: tuple[Row, ...] = ()
    reason: str = ""
    """Why the status is timeout, crashed, invalid or error: one line."""

    @property
    def passed(self) -> int:
        """The checks that count: none when the notebook did not run to its end (`POLICY`)."""
        return self.ran_passed if self.status in COUNTED else 0

    @property
    def ran_passed(self) -> int:
        """The checks that passed, counted or not."""
        return sum(r.passed for r in self.rows)

    @property
    def total(self) -> int:
        return len(self.rows)

    def first_failed_hint(self) -> str:
        """The reason for a bad status, else the first failed check and its hint."""
        if self.reason:
            return self.reason
        row = next((r for r in self.rows if not r.passed), None)
        if row is None:
            return ""
        return f"{row.exercise}: {row.name}" + (f" — {row.hint}" if row.hint else "")


def _plain(rows: Any) -> list[tuple[str, bool, str]] | None:
    if not isinstance(rows, list):
        return None
    ok = all(
        isinstance(r, tuple) and len(r) == 3 and isinstance(r[0], str)
        and isinstance(r[1], bool) and isinstance(r[2], str)
        for r in rows
    )  # fmt: skip
    return rows if ok else None


def rows_for(step: Step, entry: tuple[Any, str] | None, missing: str) -> list[Row]:
    """The rows of one check step: its own when it reported the expected number of checks,
    else `expected` (or one) failed rows saying why."""
    names = (
        [CELL_CHECK]
        if step.kind == "cell"
        else [f"check {i + 1}" for i in range(step.expected or 1)]
    )
    if entry is None:
        return [Row(step.label, name, False, missing) for name in names]
    found, error = _plain(entry[0]), entry[1]
    if found is None or not found:
        why = error or "the check reported no result"
        if error.startswith("KeyboardInterrupt"):
            why = "the check ran over its time and was interrupted"
        return [Row(step.label, name, False, why) for name in names]
    if step.expected is not None and len(found) != step.expected:
        why = f"the checker reported {len(found)} checks instead of {step.expected}"
        return [Row(step.label, name, False, why) for name in names]
    return [Row(step.label, name, passed, "" if passed else hint) for name, passed, hint in found]
