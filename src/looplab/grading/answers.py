"""The student's own code for each exercise, shown in their feedback beside its checks.

An exercise is named by its checker call, `check_token_formula(total_input)`: the
student's answer is each code cell of their notebook that defines a name the call passes
(`def total_input`, `total_input = ...`, `class ...`), as they wrote it. A cell check (a
tagged cell without a checker) has no such name, and shows no code.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from .lessons import parse_cell
from .submissions import InvalidNotebook, read_code_cells

MAX_CHARS = 4_000
"""Of one exercise's code on the page: a notebook that pastes a megabyte is cut."""


def passed_names(label: str) -> set[str]:
    """The names an exercise's checker call passes: `total_input` of
    `check_token_formula(total_input)`."""
    try:
        tree = ast.parse(label, mode="eval")
    except (SyntaxError, ValueError):
        return set()
    call = tree.body
    if not isinstance(call, ast.Call):
        return set()
    args = [*call.args, *(k.value for k in call.keywords)]
    return {n.id for a in args for n in ast.walk(a) if isinstance(n, ast.Name)}


def _defines(source: str) -> set[str]:
    tree = parse_cell(source)
    if tree is None:
        return set()
    found = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return found


def answers(path: Path, labels: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """(exercise, the student's code for it) for each label that has any, in order."""
    try:
        cells = read_code_cells(path)
    except (InvalidNotebook, OSError):
        return ()
    defined = [(source, _defines(source)) for _, source in cells]
    out = []
    for label in dict.fromkeys(labels):
        names = passed_names(label)
        code = "\n\n".join(s.strip() for s, d in defined if names & d)
        if code:
            cut = code if len(code) <= MAX_CHARS else code[:MAX_CHARS] + "\n# … (cut)"
            out.append((label, cut))
    return tuple(out)
