"""`Check` and `Scorecard`: what every checker returns, as text and as an HTML table.

A card lists one named check per rule, ✓ or ✗, with a hint next to each ✗ that says what
went wrong (not the answer). A function that is still the exercise stub (it raises
`NotImplementedError` on every check) is shown as one line, "not written yet: …", instead
of the same failure once per check. Checks speak the current language
(`looplab.set_language`): a name may be a `Message`, kept in English and shown in the
language current when the card is shown; hints are in the language the checks ran in.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import NamedTuple

from ..i18n import _

STUB_ERROR = "NotImplementedError"
PASS_COLOUR, FAIL_COLOUR = "#1a7f37", "#cf222e"
# JupyterLab right-aligns table cells; every cell says how it wants to be laid out.
CELL = "text-align:left;vertical-align:top;padding:2px 8px"


class Check(NamedTuple):
    """One named check: did it pass, and if not, what went wrong."""

    name: str
    passed: bool
    hint: str = ""


def verdict(name: str, passed: bool, hint: str = "") -> Check:
    """A `Check` that keeps its hint only when it failed."""
    return Check(name, passed, "" if passed else hint)


class Scorecard(list[Check]):
    """The checks of one checker, in order. `passed` is true when every check passed."""

    def __init__(self, title: str, checks: Sequence[Check] = ()) -> None:
        super().__init__(checks)
        self.title = title

    @property
    def passed(self) -> bool:
        return bool(self) and all(c.passed for c in self)

    @property
    def unwritten(self) -> str | None:
        """The stub's message when every check failed on one `NotImplementedError`."""
        hints = {c.hint for c in self}
        if not self or any(c.passed for c in self) or len(hints) != 1:
            return None
        hint = hints.pop()
        if not hint.startswith(STUB_ERROR):
            return None
        return hint[len(STUB_ERROR):].lstrip(": ") or _("it raises NotImplementedError")

    def summary(self) -> str:
        good = sum(c.passed for c in self)
        if self.passed:
            return _("{title}: all {n} checks passed").format(title=self.title, n=len(self))
        return _("{title}: {good} of {n} checks passed").format(
            title=self.title, good=good, n=len(self))

    def rows(self) -> list[tuple[bool, str, str]]:
        """(passed, name, hint) per line shown: one line for an unwritten stub."""
        stub = self.unwritten
        if stub is not None:
            return [(False, _("not written yet: {stub}").format(stub=stub), "")]
        return [(c.passed, str(c.name), "" if c.passed else str(c.hint)) for c in self]

    def __str__(self) -> str:
        lines = [self.summary()]
        for passed, name, hint in self.rows():
            mark = "✓" if passed else "✗"
            lines.append(f"{mark} {name}" + (f" — {hint}" if hint else ""))
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        cells = "".join(
            f'<tr><td style="{CELL};color:{PASS_COLOUR if passed else FAIL_COLOUR}">'
            f"{'✓' if passed else '✗'}</td>"
            f'<td style="{CELL}">{html.escape(name)}</td>'
            f'<td style="{CELL}">{html.escape(hint)}</td></tr>'
            for passed, name, hint in self.rows()
        )
        return f"<p><b>{html.escape(self.summary())}</b></p><table><tbody>{cells}</tbody></table>"
