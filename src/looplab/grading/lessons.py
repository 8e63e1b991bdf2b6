"""The grader's own copy of what each lesson checks, read from the lessons themselves.

A lesson's check cells are the code cells tagged `check` or calling a checker: a
`check_*` function imported from `looplab.exercises` (or defined in that cell).
Each check cell becomes a list of steps the grader runs in the student's kernel after the
student's code (see `remote.run_steps`): the lesson's imports of the checkers, the cell's
statements, and one `"check"` step per checker call. A checker from the exercises
package always reports the same number of checks; the grader learns it by calling the
checker once, here, on a function that raises `NotImplementedError` (what an untouched
exercise holds). So a submission cannot lower its total by deleting or editing a check
cell: the list and the count come from the lesson, not from the submission.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from ..errors import LooplabError
from ..i18n import normalise

EXERCISES = "looplab.exercises"
CHECK_TAG = "check"
LESSON_GLOB = "[0-9][0-9]_*.ipynb"


class LessonsNotFound(LooplabError, LookupError):
    """No folder of lessons to grade against."""


@dataclass(frozen=True)
class Step:
    """One thing to run after the student's code: see `remote.run_steps` for the kinds."""

    kind: str
    label: str
    source: str
    expected: int | None = None
    """How many checks a `"check"` step reports; None when the lesson defines the checker."""

    def as_tuple(self) -> tuple[str, str, str]:
        return (self.kind, self.label, self.source)


@dataclass(frozen=True)
class Lesson:
    """A lesson with exercises: its file name and the steps of each of its check cells."""

    name: str
    cells: tuple[tuple[Step, ...], ...]
    sources: frozenset[str]
    """The check cells' sources, stripped: a submission's unchanged copy is not run twice."""
    functions: tuple[tuple[str, str], ...] = ()
    """(name, source) of every function the lesson defines, as the lesson has it."""

    def function(self, name: str) -> str | None:
        return dict(self.functions).get(name)

    def checks(self) -> list[Step]:
        """The steps that each produce checks, in order."""
        return [s for cell in self.cells for s in cell if s.kind != "exec"]


@dataclass(frozen=True)
class Lessons:
    folder: Path
    by_name: dict[str, Lesson]
    translations: dict[str, str] = field(default_factory=dict)
    """A translated lesson's file name (`01_一次请求一次响应.ipynb` in `zh-CN/`) -> the name
    of the lesson with the same number: a translation is graded as its original, in its own
    language (`languages`)."""

    languages: dict[str, str] = field(default_factory=dict)
    """A translated lesson's file name -> its language (the name of its folder, `zh-CN`)."""

    def _named(self, filename: str) -> str | None:
        """The lesson's or translation's file name that `filename` is named like."""
        names = {name: name for name in self.by_name} | self.translations
        if filename in names:
            return filename
        lower = filename.lower()
        stems = [n for n in names if n.removesuffix(".ipynb").lower() in lower]
        return max(stems, key=len) if stems else None

    loose: bool = False
    """`--match-loose`: a file named like a lesson's title alone (`5_stop_gates.ipynb`) is
    graded as that lesson (`looks_like`)."""

    def looks_like(self, filename: str) -> str | None:
        """The lesson's file name whose title (`stop_gates` of `05_stop_gates`) is inside
        `filename` in any case or punctuation, when one lesson's alone is; else None."""
        plain = _plain(filename.removesuffix(".ipynb"))
        names = {name: name for name in self.by_name} | self.translations
        titles = {n: _plain(n.removesuffix(".ipynb")[3:]) for n in names}
        found = {self.translations.get(n, n) for n, t in titles.items() if t and t in plain}
        return found.pop() if len(found) == 1 else None

    def match(self, filename: str) -> Lesson | None:
        """The lesson a submitted file is a copy of: same name as the lesson or as its
        translation, or the longest such name inside it, in any case
        (`ada_05_stop_gates.ipynb`, `05_Stop_Gates (1).ipynb`, `学号_04_手写循环.ipynb`)."""
        named = self._named(filename)
        if named is None and self.loose:
            named = self.looks_like(filename)
        if named is None:
            return None
        return self.by_name[self.translations.get(named, named)]

    def language(self, filename: str) -> str:
        """The language a submitted file is graded in: its translation's (a Chinese copy is
        checked in Chinese, as its lesson runs), else English."""
        named = self._named(filename)
        return self.languages.get(named, "en") if named is not None else "en"


def _plain(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def default_folder() -> Path:
    """`notebooks/` of the repository this package runs from, else of the current folder."""
    here = Path(__file__).resolve().parents[3] / "notebooks"
    for candidate in (here, Path.cwd() / "notebooks"):
        if candidate.is_dir() and any(candidate.glob(LESSON_GLOB)):
            return candidate
    raise LessonsNotFound(
        "no lessons found: run this inside the looplab repository, or pass "
        "--lessons path/to/looplab/notebooks"
    )


def load_lessons(folder: Path | None = None) -> Lessons:
    """Every lesson of `folder` (default: `default_folder()`) that has check cells."""
    folder = default_folder() if folder is None else folder
    if not folder.is_dir():
        raise LessonsNotFound(f"{folder} is not a folder of lessons")
    found = {}
    for path in sorted(folder.glob(LESSON_GLOB)):
        lesson = read_lesson(path)
        if lesson is not None:
            found[path.name] = lesson
    if not found:
        raise LessonsNotFound(f"no lesson in {folder} has check cells")
    return Lessons(folder, found, translations(folder, found), languages(folder))


def translations(folder: Path, lessons: dict[str, Lesson]) -> dict[str, str]:
    """The lessons of the translated editions in `folder`'s sub-folders (`zh-CN/`), each
    paired with the lesson of `lessons` that has its number (`01_`), never by its name."""
    by_number = {name[:2]: name for name in lessons}
    return {
        path.name: by_number[path.name[:2]]
        for path in sorted(folder.glob(f"*/{LESSON_GLOB}"))
        if path.name[:2] in by_number and path.name not in lessons
    }


def languages(folder: Path) -> dict[str, str]:
    """Each translated lesson's file name -> the language looplab speaks that its folder
    is named for (`zh-CN/`)."""
    found = {}
    for path in sorted(folder.glob(f"*/{LESSON_GLOB}")):
        language = normalise(path.parent.name)
        if language is not None:
            found[path.name] = language
    return found


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def parse_cell(source: str) -> ast.Module | None:
    """A code cell as Python, IPython's magics and shell lines read as `pass`; None when
    it is a cell magic or not Python."""
    try:
        return ast.parse(as_python(source)) if not source.lstrip().startswith("%%") else None
    except (SyntaxError, ValueError):
        return None


def as_python(source: str) -> str:
    """A code cell with its magic and shell lines (`%time`, `!ls`) turned into `pass`."""
    lines = [
        line[: len(line) - len(line.lstrip())] + "pass" if line.lstrip()[:1] in ("%", "!") else line
        for line in source.split("\n")
    ]
    return "\n".join(lines)


def read_lesson(path: Path) -> Lesson | None:
    """The check cells of one lesson as steps, or None when it has none."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    parsed = [
        (number, cell, parse_cell(_source(cell)))
        for number, cell in enumerate(notebook.get("cells", []), 1)
        if cell.get("cell_type") == "code"
    ]
    imports, checkers = _imports([tree for _, _, tree in parsed if tree is not None])
    cells, sources = [], set()
    for number, cell, tree in parsed:
        tags = cell.get("metadata", {}).get("tags", [])
        tagged = isinstance(tags, list) and CHECK_TAG in tags
        if tree is None or not (tagged or _calls(tree, checkers)):
            continue
        cells.append(tuple(imports) + _steps(tree, checkers, f"check cell {number}"))
        sources.add(_source(cell).strip())
    functions = tuple(
        (node.name, ast.unparse(node))
        for _, _, tree in parsed if tree is not None
        for node in tree.body if isinstance(node, ast.FunctionDef)
    )  # fmt: skip
    return Lesson(path.name, tuple(cells), frozenset(sources), functions) if cells else None


def _imports(trees: list[ast.Module]) -> tuple[list[Step], dict[str, Any]]:
    """The lesson's imports from the exercises package (as steps) and its checkers by the
    name the lesson calls them (`alias.check_x` for `import ... as alias`)."""
    statements: list[str] = []
    checkers: dict[str, Any] = {}
    for tree in trees:
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(EXERCISES):
                module = import_module(node.module or EXERCISES)
                for alias in node.names:
                    if alias.name.startswith("check_") and hasattr(module, alias.name):
                        checkers[alias.asname or alias.name] = getattr(module, alias.name)
            elif isinstance(node, ast.Import) and any(
                a.name.startswith(EXERCISES) and a.asname for a in node.names
            ):
                for alias in node.names:
                    module = import_module(alias.name)
                    checkers.update(
                        {f"{alias.asname}.{n}": getattr(module, n)
                         for n in dir(module) if n.startswith("check_")}
                    )  # fmt: skip
            else:
                continue
            if ast.unparse(node) not in statements:
                statements.append(ast.unparse(node))
    return [Step("exec", "imports", "\n".join(statements))] if statements else [], checkers


def _called(node: ast.stmt) -> str | None:
    """`check_x` or `alias.check_x` when the statement is a bare call of one."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        name = ast.unparse(node.value.func)
        if name.rpartition(".")[2].startswith("check_"):
            return name
    return None


def _calls(tree: ast.Module, checkers: dict[str, Any]) -> list[ast.stmt]:
    """The statements that call a checker of the package or one this cell defines."""
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    return [n for n in tree.body if _called(n) in checkers or _called(n) in defined]


def _steps(tree: ast.Module, checkers: dict[str, Any], label: str) -> tuple[Step, ...]:
    calls = _calls(tree, checkers)
    if not calls:  # a tagged cell without a checker: it passes when it raises nothing
        return (Step("cell", label, ast.unparse(tree), 1),)
    steps: list[Step] = []
    pending: list[str] = []
    for node in tree.body:
        if node not in calls:
            pending.append(ast.unparse(node))
            continue
        if pending:
            steps.append(Step("exec", label, "\n".join(pending)))
            pending = []
        assert isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
        call = node.value
        checker = checkers.get(_called(node) or "")
        expected = None if checker is None else _expected(checker, call)
        steps.append(Step("check", ast.unparse(call), ast.unparse(call), expected))
    if pending:
        steps.append(Step("exec", label, "\n".join(pending)))
    return tuple(steps)


def _expected(checker: Any, call: ast.Call) -> int | None:
    """How many checks `checker` reports for an exercise nobody has written yet."""

    def unwritten(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("not written yet")

    keywords = {k.arg: unwritten for k in call.keywords if k.arg}
    try:
        card = checker(*[unwritten] * len(call.args), **keywords)
    except Exception:
        return None
    return len(card) if isinstance(card, list) and card else None
