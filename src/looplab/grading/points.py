"""Points: what each lesson and each check is worth (`--points FILE`, TOML).

    [lessons]                       # a lesson's points, by its file stem (default 10)
    "03_stop_reason_is_the_fork" = 20
    "06_token_growth" = 30

    [checks."06_token_growth"]      # a named check's points; the rest split what is left
    "no turns send nothing" = 10

When `[lessons]` names any lesson, those lessons are the ones that count (the LMS CSV's
columns and what its percent is of); otherwise every lesson with checks counts.
A lesson's points are split evenly over its checks unless a check is named (by its name,
or `exercise: name` as the scorecard shows it). Points are rounded to two decimals only
when written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..errors import LooplabError
from .results import Grade, Row

DEFAULT_POINTS = 10.0
"""What a lesson is worth when the points file does not name it."""


class PointsError(LooplabError, ValueError):
    """A points file the grader cannot use; the message is one line for the teacher."""


@dataclass(frozen=True)
class Points:
    lessons: dict[str, float] = field(default_factory=dict)
    checks: dict[str, dict[str, float]] = field(default_factory=dict)
    default: float = DEFAULT_POINTS

    def lesson(self, stem: str) -> float:
        return self.lessons.get(stem, self.default)

    def of_rows(self, stem: str, rows: tuple[Row, ...]) -> list[float]:
        """Each row's worth: named checks their points, the others an even share of the rest."""
        named = self.checks.get(stem, {})
        worth: list[float | None] = [
            named.get(f"{r.exercise}: {r.name}", named.get(r.name)) for r in rows
        ]
        rest = max(0.0, self.lesson(stem) - sum(w for w in worth if w is not None))
        unnamed = sum(w is None for w in worth)
        return [rest / unnamed if w is None else w for w in worth]

    def earned(self, stem: str, grade: Grade) -> float:
        """The points a graded notebook earns: its counted checks' worth (`results.POLICY`)."""
        if grade.passed == 0:
            return 0.0
        return sum(
            w for w, r in zip(self.of_rows(stem, grade.rows), grade.rows, strict=True) if r.passed
        )


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise PointsError(f"{where}: {value!r} is not a number of points, 0 or more")
    return float(value)


def load_points(path: Path | None) -> Points:
    """The points file at `path`, or the defaults when None."""
    if path is None:
        return Points()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise PointsError(f"cannot read {path}: {e.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise PointsError(f"{path} is not TOML: {e}") from None
    lessons, checks = data.get("lessons", {}), data.get("checks", {})
    if not isinstance(lessons, dict) or not isinstance(checks, dict):
        raise PointsError(f"{path}: [lessons] and [checks] must be tables")
    found = Points(
        {k.removesuffix(".ipynb"): _number(v, f"{path} [lessons] {k}") for k, v in lessons.items()},
        {
            k.removesuffix(".ipynb"): {n: _number(p, f"{path} [checks.{k}] {n}")
                                       for n, p in _table(v, path, k).items()}
            for k, v in checks.items()
        },
        _number(data.get("default", DEFAULT_POINTS), f"{path} default"),
    )  # fmt: skip
    return found


def _table(value: object, path: Path, key: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise PointsError(f"{path}: [checks.{key}] must be a table of check names")
    return value
