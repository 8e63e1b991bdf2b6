"""Finding submitted notebooks, reading them defensively, and copying one to a scratch folder.

Layout: one sub-folder per student (`submissions/ada/05_stop_gates.ipynb`); a notebook
directly in the submissions folder is its own student (`ada_05_stop_gates.ipynb`).
Symbolic links are never followed or copied: a student's link must not let their code
reach another student's files.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..errors import LooplabError
from .lessons import as_python

MAX_BYTES = 20_000_000
MAX_CELLS = 2_000
MAX_FOLDER_BYTES = 200_000_000
MAX_FOLDER_FILES = 5_000
SKIPPED_DIRS = (".ipynb_checkpoints", "__pycache__")
OWNER = re.compile(r"(.+?)[ _.-]+\d\d_")
"""A name before a lesson number: `jon_05_stop_gates`, `ada-04_the_loop`."""


class InvalidNotebook(LooplabError, ValueError):
    """A file the grader will not run; the message is the gradebook's one-line reason."""


@dataclass(frozen=True)
class Submission:
    student: str
    path: Path
    shown: str
    """The notebook's path inside the student's folder, as the gradebook shows it."""
    folder: Path | None
    """The student's folder, copied whole for the run; None: copy the notebook alone."""


def find_submissions(root: Path) -> list[Submission]:
    """Every notebook under `root`, by student; hidden folders and links skipped."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(files):
            path = Path(folder) / name
            if not name.endswith(".ipynb") or name.startswith(".") or path.is_symlink():
                continue
            parts = path.relative_to(root).parts
            student = parts[0] if len(parts) > 1 else _owner(path.stem)
            home = root / parts[0] if len(parts) > 1 else None
            shown = "/".join(parts[1:] or parts)
            found.append(Submission(printable(student), path, printable(shown), home))
    return sorted(found, key=lambda s: (s.student, s.shown))


def find_skipped(root: Path) -> list[tuple[str, str]]:
    """(path under `root`, why) of each link `find_submissions` left out: a linked student
    folder or notebook is never followed, and the teacher is told so."""
    skipped = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(dirs + files):
            path = Path(folder) / name
            if path.is_symlink() and (name in dirs or name.endswith(".ipynb")):
                kind = "folder" if name in dirs else "notebook"
                shown = printable("/".join(path.relative_to(root).parts))
                skipped.append((shown, f"a symbolic link to a {kind}: links are never "
                                f"graded; copy the {kind} itself there"))  # fmt: skip
    return sorted(skipped)


def printable(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 (a zip made on a Chinese Windows holds
    GBK names) shown as `\\xNN`, so the gradebook can be written whatever the name."""
    raw = os.fsencode(name)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="backslashreplace")


def _owner(stem: str) -> str:
    """The student a notebook directly in the folder belongs to: the name before the
    lesson number (`jon_05_stop_gates` -> `jon`), else the whole name."""
    found = OWNER.match(stem)
    return found.group(1) if found else stem


def read_code_cells(path: Path) -> list[tuple[int, str]]:
    """(number, source) of each code cell, or `InvalidNotebook` saying what is wrong."""
    try:
        size = path.stat().st_size
    except OSError as e:
        raise InvalidNotebook(f"cannot read the file: {e.strerror}") from None
    if size > MAX_BYTES:
        raise InvalidNotebook(f"the file is {size:,} bytes; a notebook may have {MAX_BYTES:,}")
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidNotebook("not a notebook: the file is not UTF-8 text") from None
    except (ValueError, RecursionError) as e:
        raise InvalidNotebook(f"not a notebook: not valid JSON ({str(e)[:80]})") from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list) or data.get("nbformat") != 4:
        raise InvalidNotebook("not a notebook: no nbformat 4 `cells` list")
    if len(cells) > MAX_CELLS:
        raise InvalidNotebook(f"the notebook has {len(cells):,} cells; at most {MAX_CELLS:,}")
    sources = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            raise InvalidNotebook(f"cell {number} is not a JSON object")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(s, str) for s in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise InvalidNotebook(f"cell {number}: its source is not text")
        sources.append((number, source))
    return sources


def syntax_error(cells: list[tuple[int, str]]) -> str | None:
    """ "cell N has a SyntaxError: ..." for the first code cell that is not Python."""
    for number, source in cells:
        if source.lstrip().startswith("%%"):
            continue
        try:
            ast.parse(as_python(source))
        except SyntaxError as e:
            where = f" (line {e.lineno})" if e.lineno else ""
            return f"cell {number} has a SyntaxError: {e.msg}{where}"
        except ValueError as e:  # a null byte
            return f"cell {number} has a SyntaxError: {e}"
    return None


def _folder_too_big(folder: Path) -> bool:
    files = size = 0
    for parent, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not (Path(parent) / d).is_symlink()]
        for name in names:
            files += 1
            try:
                size += (Path(parent) / name).lstat().st_size
            except OSError:
                continue
            if files > MAX_FOLDER_FILES or size > MAX_FOLDER_BYTES:
                return True
    return False


def _skip_links(parent: str, names: list[str]) -> set[str]:
    return {n for n in names if os.path.islink(os.path.join(parent, n)) or n in SKIPPED_DIRS}


def copy_for_run(submission: Submission, scratch: Path) -> Path:
    """Copy the student's folder (or the notebook alone) into `scratch`; return the copy's
    folder that holds the notebook, where its kernel starts."""
    folder = submission.folder
    if folder is not None and not _folder_too_big(folder):
        target = scratch / "folder" / folder.name
        try:
            shutil.copytree(folder, target, ignore=_skip_links)
            return target / submission.path.parent.relative_to(folder)
        except (OSError, shutil.Error):  # an unreadable file: the notebook alone, then
            pass
    target = scratch / "notebook"
    target.mkdir(parents=True)
    shutil.copyfile(submission.path, target / submission.path.name)
    return target
