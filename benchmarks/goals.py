"""How every benchmark states a result against its goal, in one wording."""

from __future__ import annotations


def judged(label: str, ratio: float, goal: float, digits: int = 2) -> str:
    """`ratio LABEL: 1.23x (goal <= 3x) ok`, or `OVER GOAL` in place of `ok`."""
    verdict = "ok" if ratio <= goal else "OVER GOAL"
    return f"ratio {label}: {ratio:.{digits}f}x (goal <= {goal:g}x) {verdict}"
