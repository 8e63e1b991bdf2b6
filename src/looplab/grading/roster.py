"""The roster is the truth (`--roster FILE`): which student each submission folder is.

A roster is a CSV with the columns `id` and `name` (an LMS's export; a `folder` column
too when some folders are named neither way). A folder is matched to a student by their
id, then by the roster's folder, then by their name, each in any case and with or without
accents, spaces or punctuation (`hugo` is `Hugo`, `ana_maria` is `Ana María`, `LI WEI`
is `Li Wei`, `ada_lovelace` is Canvas's `Lovelace, Ada`): Unicode NFKD with the
combining marks dropped, then casefolded. A folder matched to no one, or to two students
alike, is unmatched; a roster student matched by no folder handed nothing in. The grader
says both on stderr and in the gradebook page, and the LMS CSV has one row per roster
student, never one per folder.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..errors import LooplabError


class RosterError(LooplabError, ValueError):
    """A roster the grader cannot use; the message is one line for the teacher."""


@dataclass(frozen=True)
class Student:
    id: str
    name: str
    folder: str = ""
    extra: tuple[tuple[str, str], ...] = ()
    """Other columns of the roster an LMS file carries back (Canvas's SIS User ID)."""


_UNMARKED = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ð": "d", "æ": "ae", "œ": "oe",
                           "þ": "th", "ı": "i"})  # fmt: skip
"""Letters NFKD does not split into a letter and a mark, as a keyboard without them types
them (`Søren` in a folder `soren`, `Łukasz` in `lukasz`)."""


def key(text: str) -> str:
    """What a name or id is matched on: `Ana María` and `ana_maria` both `anamaria`."""
    plain = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in plain if not unicodedata.combining(c))
    return "".join(c for c in kept.casefold().translate(_UNMARKED) if c.isalnum())


@dataclass(frozen=True)
class Matched:
    """Folders matched to the roster's students."""

    students: list[Student] = field(default_factory=list)
    """The roster, in its order; empty without one."""
    by_folder: dict[str, Student] = field(default_factory=dict)
    unmatched: dict[str, str] = field(default_factory=dict)
    """{folder: why it matched no one}."""

    @property
    def missing(self) -> list[Student]:
        """Roster students no folder was matched to: they handed nothing in."""
        found = {s.id for s in self.by_folder.values()}
        return [s for s in self.students if s.id not in found]

    def who(self, folder: str) -> Student:
        """The student a folder is: from the roster, else the folder's name as id and name."""
        return self.by_folder.get(folder) or Student(folder, folder, folder)

    def warnings(self) -> list[str]:
        """One line each for stderr: unmatched folders, then students with no submission."""
        lines = [f"folder {f!r} is not on the roster ({why}); it is in no LMS row"
                 for f, why in sorted(self.unmatched.items())]  # fmt: skip
        lines += [f"{s.name} ({s.id}) on the roster handed nothing in; their LMS row is 0"
                  for s in self.missing]  # fmt: skip
        return lines


def _first_last(name: str) -> str:
    """`Ada Lovelace` of `Lovelace, Ada`: how Canvas's export sorts its Student column."""
    last, comma, first = name.partition(",")
    return f"{first} {last}" if comma else name


def _one(found: list[Student]) -> Student | None | str:
    ids = {s.id for s in found}
    if len(ids) > 1:
        return "it is named like " + " and ".join(sorted(f"{s.name} ({s.id})" for s in found))
    return found[0] if found else None


def match(folders: Iterable[str], students: list[Student]) -> Matched:
    """Each folder's student: by id, then roster folder, then name (`key` of each)."""
    if not students:
        return Matched()
    ways: tuple[Callable[[Student], tuple[str, ...]], ...] = (
        lambda s: (s.id,),
        lambda s: (s.folder,) if s.folder else (),
        lambda s: (s.name, _first_last(s.name)),
    )
    by_folder, unmatched = {}, {}
    for folder in sorted(set(folders)):
        chosen: Student | None | str = None
        for way in ways:
            exact = [s for s in students if folder in way(s)]
            alike = [s for s in students if key(folder) and key(folder) in map(key, way(s))]
            chosen = _one(exact) or _one(alike)
            if chosen is not None:
                break
        if isinstance(chosen, Student):
            by_folder[folder] = chosen
        else:
            unmatched[folder] = chosen or "no id, folder or name of the roster is like it"
    return Matched(students, by_folder, unmatched)
