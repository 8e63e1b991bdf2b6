"""A class's grades in points: each notebook's points after lateness, each student's total.

Every output (the long CSV, the LMS CSV, the HTML page, the feedback, Gradescope) reads
the same `Gradebook`, so the numbers agree everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .answers import answers
from .lateness import Lateness
from .lessons import Lessons
from .points import Points
from .results import Grade
from .roster import Matched, Student
from .submissions import Submission


@dataclass(frozen=True)
class Mark:
    grade: Grade
    lesson: str
    """The lesson's file stem; empty for a notebook named like no lesson."""
    points: float
    """After the late penalty."""
    max_points: float
    late_days: int = 0
    handed_in: str = ""
    """When it was handed in, and by which source (`Lateness.when`); empty without a
    deadline."""
    code: tuple[tuple[str, str], ...] = ()
    """(exercise, the student's code for it): what their feedback shows (`answers.py`)."""


def _round(x: float) -> float:
    return round(x + 0.0, 2)


@dataclass(frozen=True)
class Gradebook:
    marks: list[Mark]
    lessons: list[str]
    """The lessons that count, by file stem: those the points file names, else every
    lesson with checks; one LMS column each, and what `percent` is of."""
    points: Points = field(default_factory=Points)
    lateness: Lateness = field(default_factory=Lateness)
    roster: Matched = field(default_factory=Matched)
    """Which student each folder is (`roster.py`); without a roster, the folder's name."""
    skipped: tuple[tuple[str, str], ...] = ()
    """(path, why) of what was found and not graded: a linked folder, a notebook named like
    no lesson."""

    def who(self, folder: str) -> Student:
        return self.roster.who(folder)

    def people(self) -> list[tuple[str, Student, list[Mark]]]:
        """(folder, student, marks) of everyone: the roster's students in its order (a
        student with two folders once, a student with none with no marks), then the folders
        on no roster, by name."""
        by = self.students()
        out: list[tuple[str, Student, list[Mark]]] = []
        for s in self.roster.students:
            folders = [f for f in sorted(by) if self.roster.by_folder.get(f) == s]
            out.append((folders[0] if folders else "", s,
                        [m for f in folders for m in by[f]]))  # fmt: skip
        rest = [f for f in sorted(by) if f not in self.roster.by_folder]
        return out + [(f, self.who(f), by[f]) for f in rest]

    def students(self) -> dict[str, list[Mark]]:
        by: dict[str, list[Mark]] = {}
        for mark in self.marks:
            by.setdefault(mark.grade.student, []).append(mark)
        return by

    def best(self, marks: Sequence[Mark]) -> dict[str, float]:
        """A student's points per lesson: the best notebook of each (a re-submission)."""
        best: dict[str, float] = {}
        for m in marks:
            if m.lesson in self.lessons:
                best[m.lesson] = max(best.get(m.lesson, 0.0), m.points)
        return {k: _round(v) for k, v in best.items()}

    def possible(self) -> float:
        return _round(sum(self.points.lesson(stem) for stem in self.lessons))

    def total(self, marks: Sequence[Mark]) -> float:
        return _round(sum(self.best(marks).values()))

    def percent(self, marks: Sequence[Mark]) -> float:
        possible = self.possible()
        return round(100 * self.total(marks) / possible, 1) if possible else 0.0


def _stem(lessons: Lessons | None, grade: Grade) -> str:
    if not grade.rows:
        return ""
    if lessons is None:
        return Path(grade.notebook).stem
    lesson = lessons.match(Path(grade.notebook).name)
    return lesson.name.removesuffix(".ipynb") if lesson else ""


def make_gradebook(
    grades: Sequence[Grade],
    lessons: Lessons | None = None,
    points: Points | None = None,
    lateness: Lateness | None = None,
    submissions: Sequence[Submission] | None = None,
    roster: Matched | None = None,
    skipped: Sequence[tuple[str, str]] = (),
) -> Gradebook:
    """`grades` (in the order of `submissions`, when given for lateness) in points. A
    notebook of a lesson that does not count (named like no lesson, or not in the points
    file's `[lessons]`) is worth 0."""
    points, lateness = points or Points(), lateness or Lateness()
    if lessons is not None:
        stems = sorted(n.removesuffix(".ipynb") for n in lessons.by_name)
    else:
        stems = sorted({_stem(None, g) for g in grades} - {""})
    if points.lessons:  # the points file names the lessons that count
        stems = [s for s in stems if s in points.lessons]
    marks = []
    for i, grade in enumerate(grades):
        stem = _stem(lessons, grade)
        days, when = lateness.when(submissions[i]) if submissions is not None else (0, "")
        counts = stem in stems
        earned = points.earned(stem, grade) * lateness.keep(days) if counts else 0.0
        worth = points.lesson(stem) if counts else 0.0
        code = answers(submissions[i].path, (r.exercise for r in grade.rows)) if (
            submissions is not None) else ()  # fmt: skip
        marks.append(Mark(grade, stem, _round(earned), _round(worth), days, when, code))
    return Gradebook(marks, stems, points, lateness, roster or Matched(), tuple(skipped))
