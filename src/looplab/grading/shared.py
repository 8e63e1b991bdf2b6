"""Objects of the grader's that a student's function changes, used from the kernel.

A checker hands the student's function some objects it reads back afterwards: lesson 14's
`Ledger` (what the sub-agents spent). Pickled, the kernel would change its own copy and
the grader would read its untouched one. So a ledger crosses the wire as a desk
(`ledger_desk`, a callable that stays here) and arrives in the kernel as a `SharedLedger`,
whose every read, reservation and charge is asked of the desk: what the grader reads is
what was charged, and reservations from the kernel's threads meet the grader's lock. The
desk accepts whole numbers of tokens only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..lessons.subagents import Ledger


def ledger_desk(ledger: Ledger) -> Callable[..., Any]:
    """The grader's side: read `ledger` (`budget`, `used`, `held`, `remaining`), `add` to
    it, `reserve` tokens (a hold's number or None) and `settle` a hold."""

    def desk(op: str, tokens: Any = None, hold: Any = None) -> Any:
        if op in ("add", "reserve", "settle"):
            if type(tokens) is not int and not (op == "settle" and tokens is None):
                raise TypeError(f"a ledger takes whole tokens, not {type(tokens).__name__}")
            if op != "settle":
                assert tokens is not None  # checked above: an int
                return ledger.reserve(tokens) if op == "reserve" else ledger.add(tokens)
            if type(hold) is not int:
                raise TypeError(f"a hold is a number, not {type(hold).__name__}")
            ledger.settle(hold, tokens)
            return None
        if op in ("budget", "used", "held", "remaining"):
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

    @property
    def held(self) -> int:
        return int(self._desk("held"))

    @property
    def remaining(self) -> int:
        return int(self._desk("remaining"))

    def reserve(self, tokens: int) -> int | None:
        hold = self._desk("reserve", tokens)
        return None if hold is None else int(hold)

    def settle(self, hold: int, spent: int | None) -> None:
        self._desk("settle", spent, hold)

    def add(self, tokens: int) -> None:
        self._desk("add", tokens)
