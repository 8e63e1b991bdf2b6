"""The checkers' scorecards a lesson shows, read from its outputs: a card's first line is its
summary, in the catalog's words of either language (`Scorecard.summary`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from looplab.i18n import LANGUAGES, catalog

ALL = "{title}: all {n} checks passed"
SOME = "{title}: {good} of {n} checks passed"
BEFORE = "before"
"""The tag of a cell that shows a checker's card of the "before" state on purpose (lesson 11
grades the museum's broken loop before you repair it)."""
SOLUTION = "### BEGIN SOLUTION"


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{title\}|\{n\}|\{good\})", template)
    regex = "".join({"{title}": r"(?P<title>.+?)", "{n}": r"(?P<n>\d+)",
                     "{good}": r"(?P<good>\d+)"}.get(p, re.escape(p)) for p in parts)  # fmt: skip
    return re.compile(f"^{regex}$")


FULL = [_pattern(catalog(lang).gettext(ALL)) for lang in LANGUAGES]
PART = [_pattern(catalog(lang).gettext(SOME)) for lang in LANGUAGES]


class Card(NamedTuple):
    cell: int
    summary: str
    full: bool


def _texts(output: dict[str, Any]) -> list[str]:
    text = output.get("text") or output.get("data", {}).get("text/plain", "")
    return ["".join(text) if isinstance(text, list) else str(text)]


def cards(notebook: dict[str, Any]) -> list[Card]:
    """Every scorecard the code cells show, but those of cells tagged `before`."""
    found = []
    for number, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code" or BEFORE in cell.get("metadata", {}).get("tags", []):
            continue
        for output in cell.get("outputs", []):
            for text in _texts(output):
                for line in text.splitlines():
                    if any(p.match(line) for p in FULL):
                        found.append(Card(number, line, True))
                    elif any(p.match(line) for p in PART):
                        found.append(Card(number, line, False))
    return found


def has_solutions(path: Path) -> bool:
    return SOLUTION in path.read_text(encoding="utf-8")
