"""A class split across machines: `looplab-grade SUBMISSIONS_DIR --shard I/N --part FILE`
grades the students of shard I (0 to N-1) and writes what it graded to FILE, and
`looplab-grade merge PARTS...` builds from all N parts the same gradebook, LMS CSV,
HTML page and feedback one run on one machine writes.

A student's shard is a hash of their id (the roster's, else their folder's name), so
every machine that reads the same class and roster agrees where each student goes, and a
student with two folders is graded in one shard. The scheduler is the one a school
already runs: a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX` is I) or a GitHub Actions
matrix (`tools/classroom/`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import LooplabError
from .lateness import Lateness
from .marks import Gradebook, Mark
from .points import Points
from .results import Grade, Row

VERSION = 1


class PartError(LooplabError, ValueError):
    """Parts the grader will not merge; one line for the teacher."""


def shard_arg(text: str) -> tuple[int, int]:
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and int(index) < int(count)):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a shard I/N with 0 <= I < N (0/4 is the first of four)"
        )
    return int(index), int(count)


def shard_of(student_id: str, count: int) -> int:
    """The shard of a student, the same on every machine (not Python's salted `hash`)."""
    digest = hashlib.sha256(student_id.encode("utf-8", "backslashreplace")).digest()
    return int.from_bytes(digest[:8], "big") % count


def _mark(m: Mark) -> dict[str, Any]:
    return {**asdict(m), "grade": {**asdict(m.grade), "rows": [asdict(r) for r in m.grade.rows]}}


def _unmark(d: dict[str, Any]) -> Mark:
    g = d["grade"]
    grade = Grade(g["student"], g["notebook"], g["status"],
                  tuple(Row(**r) for r in g["rows"]), g["reason"])  # fmt: skip
    return Mark(grade, d["lesson"], d["points"], d["max_points"], d["late_days"],
                d["handed_in"], tuple((a, b) for a, b in d["code"]))  # fmt: skip


def _rules(book: Gradebook) -> dict[str, Any]:
    """What the numbers were computed with: every part must agree on it."""
    deadline = book.lateness.deadline
    return {
        "lessons": book.lessons,
        "points": asdict(book.points),
        "deadline": deadline.isoformat() if deadline else None,
        "penalty": book.lateness.penalty,
    }


def write_part(book: Gradebook, path: Path, shard: tuple[int, int]) -> None:
    """One shard's marks, and the rules they were computed with, as JSON."""
    part = {
        "looplab-grade part": VERSION,
        "shard": list(shard),
        "rules": _rules(book),
        "marks": [_mark(m) for m in book.marks],
        "skipped": [list(s) for s in book.skipped],
    }
    path.write_text(json.dumps(part, ensure_ascii=False, indent=1) + "\n", encoding="utf-8",
                    errors="backslashreplace")  # fmt: skip


def _read(path: Path) -> dict[str, Any]:
    try:
        part = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise PartError(f"cannot read {path}: {e.strerror}") from None
    except ValueError:
        raise PartError(f"{path} is not a part `looplab-grade --shard` wrote") from None
    if not isinstance(part, dict) or part.get("looplab-grade part") != VERSION:
        raise PartError(f"{path} is not a part `looplab-grade --shard` wrote (of this version)")
    return part


def read_parts(paths: Sequence[Path]) -> Gradebook:
    """The gradebook of all the parts: each shard 0 to N-1 once, all graded by the same
    rules. `PartError` saying what is missing or does not fit."""
    parts = [(p, _read(p)) for p in paths]
    counts = {tuple(part["shard"])[1] for _, part in parts}
    if len(counts) != 1:
        raise PartError(f"the parts are of different splits: N is {sorted(counts)}")
    (count,) = counts
    seen: dict[int, Path] = {}
    for path, part in parts:
        index = part["shard"][0]
        if index in seen:
            raise PartError(f"{seen[index]} and {path} are both shard {index}/{count}")
        seen[index] = path
    missing = sorted(set(range(count)) - set(seen))
    if missing:
        raise PartError("no part of shard " + ", ".join(f"{i}/{count}" for i in missing)
                        + ": grade it, or wait for it, before merging")  # fmt: skip
    rules = parts[0][1]["rules"]
    for path, part in parts[1:]:
        if part["rules"] != rules:
            raise PartError(f"{path} was graded with other lessons, points or deadline than "
                            f"{parts[0][0]}: grade every shard with the same options")  # fmt: skip
    marks = [_unmark(m) for _, part in parts for m in part["marks"]]
    folders: dict[str, Path] = {}
    for path, part in parts:
        for student in {m["grade"]["student"] for m in part["marks"]}:
            if student in folders and folders[student] != path:
                raise PartError(f"{student} is in {folders[student]} and in {path}")
            folders[student] = path
    marks.sort(key=lambda m: (m.grade.student, m.grade.notebook))
    skipped = sorted({tuple(s) for _, part in parts for s in part["skipped"]})
    points = Points(**rules["points"])
    deadline = datetime.fromisoformat(rules["deadline"]) if rules["deadline"] else None
    lateness = Lateness(deadline, rules["penalty"])
    return Gradebook(marks, list(rules["lessons"]), points, lateness, skipped=tuple(
        (str(a), str(b)) for a, b in skipped))  # fmt: skip

