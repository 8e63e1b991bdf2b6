"""Answers imported from looplab: an exercise that asks for a function looplab ships.

Several exercises ask the student to write something looplab itself has (the loop,
`close_dangling`, the token formula). A submission whose answer is looplab's own (the
name imported from looplab, assigned from it, or a function that calls it) gets the
status `invalid` with the reason. This reads the submission's source, as the grader has
it; it does not run anything. A name made at run time (`importlib`, `sys.modules`) is out of
its sight: for that, a graded kernel holds those answers under no public name, and reports
whether one ran in a checked call (`kernel_request`, `hiding.py`).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable

from ..i18n import worded
from .lessons import parse_cell

SHIPPED: dict[str, frozenset[str]] = {
    "check_next_action": frozenset({"STOP_REASONS"}),
    "check_agent_loop": frozenset({"run_agent", "AgentRun"}),
    "check_close_dangling": frozenset({"close_dangling"}),
    "check_token_formula": frozenset({"cumulative_input"}),
    "check_run_tool": frozenset({"call_tool", "answer_calls"}),
    "check_museum_loop": frozenset({"run_agent", "AgentRun"}),
    "check_code_result": frozenset({"result_of"}),
}
"""For each checker, what looplab ships that would answer its exercise."""
NEEDED = frozenset({"run_agent", "AgentRun"})
"""Shipped answers the lessons themselves use (every lesson runs agents): a graded kernel
keeps them, and only watches whether they run in a checked call (`hiding.Watch`)."""
PACKAGE = "looplab"


def shipped_names(checkers: Iterable[str]) -> frozenset[str]:
    """Every shipped answer of `checkers`: what a kernel may report as having run."""
    return frozenset().union(*(SHIPPED.get(c.rpartition(".")[2], ()) for c in checkers))


def kernel_request(checkers: Iterable[str]) -> str:
    """What a kernel checked by `checkers` is started with (`hiding.ENV`): the shipped answers
    it holds under no public name, and those whose running inside a checked call it reports."""
    watched = sorted(shipped_names(checkers))
    return json.dumps({"hide": [n for n in watched if n not in NEEDED], "watch": watched})


def ran_shipped(answer: str, shipped: str) -> str:
    """Why `answer` is invalid when looplab's own `shipped` ran inside a call of it."""
    return worded("{answer} used looplab's own {shipped}: the exercise asks you to write it",
                  answer=answer, shipped=shipped)


def _imports(trees: Iterable[ast.Module]) -> tuple[dict[str, str], set[str]]:
    """({local name: looplab name} for names imported from looplab, local names of
    looplab modules)."""
    names: dict[str, str] = {}
    modules: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == PACKAGE:
                for alias in node.names:
                    names[alias.asname or alias.name] = alias.name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == PACKAGE:
                        modules.add(alias.asname or alias.name.split(".")[0])
    return names, modules


def _uses(node: ast.AST, wanted: frozenset[str], names: dict[str, str],
          modules: set[str]) -> str | None:  # fmt: skip
    """The shipped name `node` refers to anywhere inside it, if any."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and names.get(sub.id) in wanted:
            return names[sub.id]
        if isinstance(sub, ast.Attribute) and sub.attr in wanted:
            root = sub.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in modules:
                return sub.attr
    return None


def imported_answer(sources: Iterable[str], checker: str, answer: str) -> str | None:
    """Why `answer`, the function checked by `checker`, is looplab's own; None if not."""
    wanted = SHIPPED.get(checker.rpartition(".")[2])
    if not wanted:
        return None
    trees = [t for t in (parse_cell(s) for s in sources) if t is not None]
    names, modules = _imports(trees)
    for tree in trees:
        for node in ast.walk(tree):
            found = None
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == PACKAGE:
                bound = [a.name for a in node.names if (a.asname or a.name) == answer]
                found = next((n for n in bound if n in wanted), None)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and answer in _targets(node):
                found = _uses(node.value, wanted, names, modules) if node.value else None
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == answer:
                found = _uses(node, wanted, names, modules)
            if found:
                return (f"{answer} is looplab's own {found}, imported from looplab: the "
                        f"exercise asks you to write it")  # fmt: skip
    return None


def _targets(node: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
