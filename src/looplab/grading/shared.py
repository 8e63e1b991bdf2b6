"""Objects of the grader's that a student's function changes, used from the kernel.

A checker hands the student's function some objects it reads back afterwards: lesson 14's
`Ledger` (what the sub-agents spent). Pickled, the kernel would change its own copy and
the grader would read its untouched one. So a ledger crosses the wire as a desk
(`ledger_desk`, a callable that stays here) and arrives in the kernel as a `SharedLedger`,
whose every read and charge is asked of the desk: what the grader reads is what was
charged. The desk accepts whole numbers of tokens only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..lessons.subagents import Ledger


def ledger_desk(ledger: Ledger) -> Callable[..., Any]:
    """The grader's side: read `ledger` (`budget`, `used`, `remaining`) or `add` to it."""

    def desk(op: str, tokens: Any = None) -> Any:
        if op == "add":
            if type(tokens) is not int:
                raise TypeError(f"a ledger adds whole tokens, not {type(tokens).__name__}")
            ledger.add(tokens)
            return None
        if op in ("budget", "used", "remaining"):
            return getattr(ledger, op)
        raise ValueError(f"a ledger has no {op!r}")

    return desk


class SharedLedger(Ledger):
    """The kernel's side: a `Ledger` whose numbers live in the grader (`desk` asks there)."""

    def __init__(self, desk: Callable[..., Any]) -> None:  # not the dataclass's fields
        self._desk = desk

    @property
    def budget(self) -> int:
        return int(self._desk("budget"))

    @budget.setter
    def budget(self, value: int) -> None:
        raise AttributeError("the ledger's budget is the grader's")

    @property
    def used(self) -> int:
        return int(self._desk("used"))

    @used.setter
    def used(self, value: int) -> None:  # `ledger.used += n` adds n
        self._desk("add", value - self.used)

    def add(self, tokens: int) -> None:
        self._desk("add", tokens)
