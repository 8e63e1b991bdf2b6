"""Generate the student copies of the lessons: `notebooks/exercises/NN_*.ipynb` (and
`notebooks/zh-CN/exercises/NN_*.ipynb` for the Chinese edition).

The lessons are the one source of truth. A solution inside a lesson's code cell sits
between two nbgrader-compatible marker lines (plain comments, so the lesson still runs):

    ### BEGIN SOLUTION
    # TASK: build one user message holding every tool_result    <- optional
    ...the solution...
    ### END SOLUTION

In the student copy each such region becomes, at the region's indentation,

    # YOUR CODE HERE
    raise NotImplementedError("build one user message holding every tool_result")

(a generic sentence when there is no `# TASK:` line). Outputs and execution counts are
cleared, and check cells (tagged `check`, or with a statement that is a call of a
`looplab.exercises.check_*` function) are tagged `check` and `raises-exception`, so
JupyterLab's Run All goes on past them. (`looplab-grade` takes the check cells from the
lessons, not from these tags.) Only lessons with at least one solution region get a
student copy.

A copy is the student's once they change it. Each copy records, in its notebook metadata
(`looplab.exercise`), a fingerprint of what was generated and of its cells as generated
(type, source and tags of each: what a student writes). A copy whose cells no longer match
that fingerprint holds the student's work, and is never overwritten or removed: when its
lesson has changed since, this tool leaves it as it is and says how to keep the work
(`--force` moves it to `exercises/saved/` first, then writes the new copy). Running a copy
(outputs, execution counts, saved widgets) changes nothing a student wrote: an unchanged copy
whose lesson changed is simply replaced. `--check` fails only for copies the author must
regenerate: a copy left as generated that is stale, a missing or extra one; a student's
changed copy is listed and passes.

Notebooks are read and written with nbformat, so the copies are written the way Jupyter
writes them (sorted keys, one-space indent, sources split into lines). Importing it costs
a second or more (jsonschema loads its format checkers), once per run of this tool.

    python tools/make_exercises.py            # write the copies (what `make exercises` runs)
    python tools/make_exercises.py --force    # ...moving copies with a student's work aside
    python tools/make_exercises.py --check    # exit 1 if any copy is stale, missing or extra
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_markdown_cell

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
TASK_PREFIXES = ("# TASK:", "# 任务：")  # the Chinese lessons say it in Chinese
YOUR_CODE = {"en": "# YOUR CODE HERE", "zh-CN": "# 在这里写你的代码"}
# A comment line that names a solution marker in any other spelling: an error, never text.
NEAR_MISS = re.compile(r"#+\s*(?:BEGIN|END)[\s_-]*SOLUTION\b", re.IGNORECASE)
GENERIC_TASKS = {
    "en": "write this part yourself, then run the check cell below",
    "zh-CN": "这一段由你来写，写完运行下面的检查单元格",
}
CHECK_TAG = "check"
RAISES_TAG = "raises-exception"
NOTE_ID = "exercise-note"
# The note on top of each copy, per edition (the folder a Chinese lesson lives in: zh-CN/).
# The note names the lesson without linking it: the lesson holds the solutions.
NOTES = {
    "en": "*Your copy of lesson {number}, to work in: each exercise's solution is left out.* "
    "Replace each `raise NotImplementedError(...)` with your code, then run the check cell "
    "below it.",
    "zh-CN": "*第 {number} 课的练习版，供你动手：练习的答案已经去掉。* 把每个 "
    "`raise NotImplementedError(...)` 换成你的代码，再运行它下面的检查单元格。",
}
EDITIONS = ("zh-CN",)
# Where a copy's fingerprints live in its notebook metadata; where --force moves a copy that
# holds a student's work before writing the new one (a subfolder: never taken for a copy).
RECORD = ("looplab", "exercise")
SAVED = "saved"  # subfolders of notebooks/ holding a translated edition

LESSON_NAME = re.compile(r"^\d\d_.+\.ipynb$")
# How a lesson reaches the checkers: `from looplab.exercises import check_x, ...`,
# `import looplab.exercises as ex`, or the dotted name `looplab.exercises.check_x(...)`.
# (`looplab.check_history(...)` is a rules call, not a check cell.)
FROM_IMPORT = re.compile(
    r"from[ \t]+looplab\.(?:lessons\.)?exercises[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)"
)
MODULE_ALIAS = re.compile(r"import\s+looplab\.(?:lessons\.)?exercises\s+as\s+(\w+)")
CALL = re.compile(r"(?<![\w.])([\w.]+)\s*\(")

REPO = Path(__file__).resolve().parent.parent


class MarkerError(ValueError):
    """A lesson's solution markers do not pair up."""


def stub_source(
    source: str, where: str = "cell", language: str = "en"
) -> tuple[str, int, bool]:
    """Replace every solution region of one cell's source.

    Returns the new source, the number of regions, and whether one sat at top level
    (its stub raises as soon as the cell runs).
    """
    out: list[str] = []
    lines = source.split("\n")
    regions = 0
    top_level = False
    i = 0
    while i < len(lines):
        line = lines[i]
        _check_marker(line, where, i)
        if line.strip() == END:
            raise MarkerError(f"{where}, line {i + 1}: `{END}` without a `{BEGIN}` above it")
        if line.strip() != BEGIN:
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        start = i
        i += 1
        task = GENERIC_TASKS[language]
        said = lines[i].strip() if i < len(lines) else ""
        prefix = next((p for p in TASK_PREFIXES if said.startswith(p)), None)
        if prefix is not None:
            task = said[len(prefix) :].strip() or GENERIC_TASKS[language]
        while i < len(lines) and lines[i].strip() not in (BEGIN, END):
            _check_marker(lines[i], where, i)
            i += 1
        if i == len(lines) or lines[i].strip() == BEGIN:
            raise MarkerError(
                f"{where}, line {start + 1}: `{BEGIN}` has no matching `{END}` "
                "(regions cannot nest)"
            )
        # json.dumps gives a valid Python string literal for any one-line text
        out.append(f"{indent}{YOUR_CODE[language]}")
        out.append(f"{indent}raise NotImplementedError({json.dumps(task, ensure_ascii=False)})")
        regions += 1
        top_level = top_level or indent == ""
        i += 1  # past END
    return "\n".join(out), regions, top_level


def _check_marker(line: str, where: str, index: int) -> None:
    """Raise `MarkerError` for a line that looks like a marker but is not one exactly
    (`### BEGIN SOLUTION:`, `### begin solution`, `#### BEGIN SOLUTION`): left as it is,
    the solution below it would reach the student copy."""
    text = line.strip()
    if text not in (BEGIN, END) and NEAR_MISS.match(text):
        raise MarkerError(
            f"{where}, line {index + 1}: `{text}` looks like a solution marker but is not "
            f"one; write exactly `{BEGIN}` or `{END}`"
        )


def check_markers(lesson: dict[str, Any], lesson_name: str, language: str = "en") -> None:
    """Raise `MarkerError` for any marker in any code cell that is unpaired or a near miss,
    in a lesson with solutions or without."""
    for index, cell in enumerate(lesson.get("cells", [])):
        if cell.get("cell_type") == "code":
            where = f"{lesson_name} cell {index} (id {cell.get('id', '?')})"
            stub_source(_text(cell["source"]), where, language)


def _text(source: str | list[str]) -> str:
    """A cell's source as one string (files store it split into lines)."""
    return source if isinstance(source, str) else "".join(source)


def _lines(text: str) -> list[str]:
    """Split a source the way Jupyter stores it: a list of lines, each keeping its newline."""
    return text.splitlines(keepends=True)


def _checker_names(cells: list[dict[str, Any]]) -> set[str]:
    """Every name by which this notebook's code can call a checker."""
    # prefixes of dotted calls
    names = {"looplab.exercises.", "exercises."}
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = _text(cell["source"])
        for group in FROM_IMPORT.findall(source):
            for name in group.strip("()").split(","):
                original, _, alias = name.partition(" as ")
                if original.strip().startswith("check_"):
                    names.add((alias or original).strip())
        names.update(alias + "." for alias in MODULE_ALIAS.findall(source))
    return names


def _bare_calls(source: str) -> list[str]:
    """The names called by the cell's top-level call statements (`check_x(f)`, not
    `card = check_x(f)`): the rule looplab-grade uses to find a lesson's check cells."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: fall back to every call in the text
        return CALL.findall(source)
    return [ast.unparse(node.value.func) for node in tree.body
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)]


def _is_check_cell(cell: dict[str, Any], checkers: set[str]) -> bool:
    if CHECK_TAG in cell.get("metadata", {}).get("tags", []):
        return True
    for called in _bare_calls(_text(cell["source"])):
        prefix, _, last = called.rpartition(".")
        if called in checkers or (last.startswith("check_") and prefix + "." in checkers):
            return True
    return False


def _add_tag(cell: dict[str, Any], tag: str) -> None:
    tags = list(cell["metadata"].get("tags", []))
    if tag not in tags:
        tags.append(tag)
    cell["metadata"]["tags"] = tags


def _has_solution(nb: dict[str, Any]) -> bool:
    return any(
        c["cell_type"] == "code"
        and any(line.strip() == BEGIN for line in _text(c["source"]).split("\n"))
        for c in nb.get("cells", [])
    )


def make_exercise(
    lesson: dict[str, Any], lesson_name: str, language: str = "en"
) -> nbformat.NotebookNode | None:
    """The student copy of one lesson notebook, or None if it has no solution region."""
    check_markers(lesson, lesson_name, language)
    if not _has_solution(lesson):
        return None
    nb = nbformat.from_dict(lesson)  # a copy, down to every cell
    nb.setdefault("metadata", {}).pop("widgets", None)  # saved widget state: lesson output
    checkers = _checker_names(nb["cells"])
    cells = []
    for index, cell in enumerate(nb["cells"]):
        cell["id"] = cell.get("id") or f"cell-{index}"
        cell.setdefault("metadata", {}).pop("execution", None)  # timings
        source = _text(cell["source"])
        if cell["cell_type"] == "code":
            where = f"{lesson_name} cell {index} (id {cell['id']})"
            is_check = _is_check_cell(cell, checkers)
            source, _, top_level_stub = stub_source(source, where, language)
            cell["outputs"] = []
            cell["execution_count"] = None
            if is_check:  # tagged `check` so a reader sees which cells check
                _add_tag(cell, CHECK_TAG)
            # a stub at top level raises as soon as it runs: let Run All reach the checks
            if is_check or top_level_stub:
                _add_tag(cell, RAISES_TAG)
        else:
            # markers are only meaningful in code; drop any that strayed into prose
            source = "\n".join(
                line for line in source.split("\n") if line.strip() not in (BEGIN, END)
            )
        cell["source"] = _lines(source)
        cells.append(cell)
    note = new_markdown_cell(_lines(NOTES[language].format(number=lesson_name[:2])), id=NOTE_ID)
    nb["cells"] = [note, *cells]
    nb["nbformat"], nb["nbformat_minor"] = 4, max(5, nb.get("nbformat_minor", 5))
    return nb


def render(nb: dict[str, Any]) -> str:
    """The file text, as Jupyter writes it: sorted keys, one-space indent (nbformat's
    defaults), final newline (which `nbformat.write` adds after `writes`)."""
    return nbformat.writes(nbformat.from_dict(nb), version=4) + "\n"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cells_fingerprint(nb: dict[str, Any]) -> str:
    """What a student writes in a copy, as one hash: each cell's type, source and tags.
    Outputs, execution counts and other metadata are left out: running a copy is not
    changing it."""
    cells = [[c.get("cell_type"), _text(c.get("source", "")),
              list(c.get("metadata", {}).get("tags", []))] for c in nb.get("cells", [])]
    return _sha(json.dumps(cells, ensure_ascii=False))


def recorded(nb: dict[str, Any]) -> dict[str, str]:
    """The fingerprints a copy was generated with (empty for a copy without them)."""
    found: Any = nb.get("metadata", {})
    for key in RECORD:
        found = found.get(key, {}) if isinstance(found, dict) else {}
    return found if isinstance(found, dict) else {}


def stamped(nb: nbformat.NotebookNode) -> str:
    """The copy's file text, with the fingerprints of what it is in its metadata. What was
    generated is hashed as content (sources joined, keys sorted), not as the file's text,
    which another nbformat may lay out differently."""
    content = nbformat.reads(render(nb), as_version=nbformat.NO_CONVERT)
    generated = _sha(json.dumps(content, sort_keys=True, ensure_ascii=False))
    nb.metadata.setdefault(RECORD[0], {})[RECORD[1]] = {
        "generated": generated, "cells": cells_fingerprint(nb)}
    return render(nb)


# What nbformat raises for a file that is not a notebook: not JSON or an unknown version
# (ValueErrors), JSON but no object (AttributeError), an object missing a notebook's keys.
NOT_A_NOTEBOOK = (ValueError, AttributeError, nbformat.ValidationError)


def _read(path: Path) -> nbformat.NotebookNode:
    try:
        nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    except NOT_A_NOTEBOOK as e:
        raise ValueError(f"{_shown(path)}: not a notebook ({e})") from e
    if nb.get("nbformat") != 4:
        raise ValueError(f"{path.name}: not an nbformat 4 notebook")
    return nb


def editions(notebooks: Path) -> list[tuple[Path, str]]:
    """Each folder of lessons with its language: the English one, then each translation."""
    found = [(notebooks, "en")]
    return found + [(notebooks / e, e) for e in EDITIONS if (notebooks / e).is_dir()]


def plan(notebooks: Path) -> dict[Path, str]:
    """Every student copy that should exist, mapped to its exact text."""
    wanted: dict[Path, str] = {}
    for folder, language in editions(notebooks):
        for path in sorted(folder.glob("*.ipynb")):
            if not LESSON_NAME.match(path.name):
                continue
            exercise = make_exercise(_read(path), path.name, language)
            if exercise is not None:
                wanted[folder / "exercises" / path.name] = stamped(exercise)
    return wanted


def state(path: Path, wanted: str | None) -> str:
    """What the copy at `path` is, against the text this tool would write there now
    (None: no copy belongs there):

    missing, current or stale (left as generated: this tool may write over it), edited
    (the student changed it; its lesson has not changed since), outdated (the student
    changed it and its lesson changed since), unreadable (not a notebook: never
    overwritten either, it may be a student's damaged work).
    """
    if not path.exists():
        return "missing"
    try:
        copy = nbformat.reads(path.read_text(encoding="utf-8"), as_version=nbformat.NO_CONVERT)
        cells = cells_fingerprint(copy)
    except (*NOT_A_NOTEBOOK, UnicodeDecodeError):
        return "unreadable"
    made = recorded(copy)
    new = recorded(nbformat.reads(wanted, as_version=nbformat.NO_CONVERT)) if wanted else {}
    # a copy that records nothing (made before the fingerprints) is as generated when its
    # cells are the ones this tool writes now
    if cells != made.get("cells", new.get("cells")):
        return "edited" if made and made.get("generated") == new.get("generated") else "outdated"
    return "current" if made.get("generated") == new.get("generated") else "stale"


def _existing(notebooks: Path) -> list[Path]:
    return sorted(
        p
        for folder, _ in editions(notebooks)
        for p in (folder / "exercises").glob("*.ipynb")
        if LESSON_NAME.match(p.name)
    )


def survey(notebooks: Path) -> tuple[dict[Path, str], list[tuple[str, Path]]]:
    """Every copy that should exist, with its text, and (state, path) of every copy that
    should or does exist."""
    wanted = plan(notebooks)
    states = [(state(path, text), path) for path, text in wanted.items()]
    states += [(state(p, None), p) for p in _existing(notebooks) if p not in wanted]
    return wanted, states


# A copy with a student's changes: never overwritten or removed without --force.
STUDENTS = ("edited", "outdated", "unreadable")
WHY_KEPT = {
    "outdated": "it holds your changes, and its lesson has changed since it was made",
    "unreadable": "it is not a notebook any more, and may hold your work",
}


def check(notebooks: Path) -> tuple[list[tuple[str, Path]], list[tuple[str, Path]]]:
    """(problem, path) for every copy the author must regenerate: stale (left as generated,
    its lesson changed since), missing, extra (its lesson has no exercise any more) or
    unreadable; empty when fresh. Then (state, path) of each copy holding a student's
    changes: theirs, never a problem."""
    wanted, states = survey(notebooks)
    problems: list[tuple[str, Path]] = []
    yours: list[tuple[str, Path]] = []
    for what, path in states:
        if what in ("edited", "outdated"):
            yours.append((what, path))
        elif path not in wanted:
            if what != "unreadable":
                problems.append(("extra", path))
        elif what != "current":
            problems.append((what, path))
    return problems, yours


def saved_path(path: Path) -> Path:
    """Where --force moves a student's copy: exercises/saved/, under a name not yet taken."""
    folder = path.parent / SAVED
    target, n = folder / path.name, 2
    while target.exists():
        target, n = folder / f"{path.stem}-{n}{path.suffix}", n + 1
    return target


def write(notebooks: Path, force: bool = False) -> tuple[list[tuple[str, Path]], list[Path]]:
    """Bring the copies up to date; return what changed as (action, path), and the copies
    left as they are because they hold a student's work (none with `force`: those are
    moved to exercises/saved/ first, reported as ("saved", where))."""
    wanted, states = survey(notebooks)
    changes: list[tuple[str, Path]] = []
    kept: list[Path] = []
    for what, path in states:
        text = wanted.get(path)
        if what in ("current", "edited") and text is not None:
            continue  # up to date, or up to date and the student's
        if what in STUDENTS:
            if not force:
                kept.append(path)
                continue
            target = saved_path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            path.replace(target)
            changes.append(("saved", target))
        if text is None:
            if path.exists():  # its lesson is gone or has no solution region any more
                path.unlink()
            changes.append(("removed", path))
            continue
        changes.append(("updated" if what != "missing" else "created", path))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return changes, kept


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if a copy is stale, missing or extra"
    )
    parser.add_argument(
        "--notebooks",
        type=Path,
        default=REPO / "notebooks",
        help="the lessons' folder (default: notebooks/ of this repository)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace copies that hold a student's changes too, after moving each to "
        f"exercises/{SAVED}/",
    )
    args = parser.parse_args(argv)
    notebooks: Path = args.notebooks.resolve()
    try:
        if args.check:
            problems, yours = check(notebooks)
            for what, path in yours:
                since = "; its lesson changed since" if what == "outdated" else ""
                print(f"kept, changed by you{since}: {_shown(path)}")
            if problems:
                print("exercise copies are out of date; run `make exercises`:")
                width = max(len(problem) for problem, _ in problems) + 2
                for problem, path in problems:
                    print(f"  {problem + ':':{width}}{_shown(path)}")
                return 1
            print(f"exercise copies are up to date ({len(plan(notebooks))} generated)")
            return 0
        changes, kept = write(notebooks, force=args.force)
    except ValueError as e:  # unpaired markers, a lesson that is not a notebook
        print(f"error: {e}", file=sys.stderr)
        return 2
    for action, path in changes:
        print(f"{action}: {_shown(path)}")
    if not changes and not kept:
        print("exercise copies already up to date")
    for path in kept:
        why = WHY_KEPT["unreadable" if state(path, None) == "unreadable" else "outdated"]
        print(
            f"kept {_shown(path)}: {why}. To keep your work and get the new copy, run "
            f"`make exercises FORCE=1` (`--force`): it moves yours to "
            f"{_shown(saved_path(path))} first.",
            file=sys.stderr,
        )
    return 1 if kept else 0


if __name__ == "__main__":
    sys.exit(main())
