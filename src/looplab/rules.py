"""The message-history rules the Messages API enforces (placeholder, being written)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class Violation:
    rule: str
    severity: Literal["error", "warning"]
    path: str
    message: str
    hint: str


class HistoryError(ValueError):
    def __init__(self, violations: list[Violation]) -> None:
        self.violations = violations
        super().__init__("\n".join(f"{v.message} ({v.hint})" for v in violations))


def check_history(messages: Any, *, tools: Any = None) -> list[Violation]:
    return []


def assert_valid(messages: Any) -> None:
    errors = [v for v in check_history(messages) if v.severity == "error"]
    if errors:
        raise HistoryError(errors)
