"""The package's layers import in one direction only, and the loop stands on its own.

    errors.py  i18n.py                 looplab's errors and warnings; the learner's language
    running/  history/                 what the loop uses: running one call; the history rules
    core/                              the loop a student reads beside the article
    tokens.py                          token arithmetic
    fake/  views/  lessons/  live/     the offline API, what a notebook shows, the demo
    exercises/  grading/               the lessons' checkers; looplab-grade, which uses them
    connect.py, grade.py, __init__.py  the package's face

`ALLOWED` says, for each layer, which others it may import. Imports inside functions and
in `if TYPE_CHECKING:` blocks count too: they are still dependencies. An `__init__.py` is
a module like any other: its relative imports are resolved from its own package.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "looplab"
ALLOWED: dict[str, set[str]] = {
    "i18n": set(),
    "errors": set(),
    "running": {"errors", "i18n"},
    "schemas": set(),
    "history": {"errors", "i18n"},
    "core": {"errors", "i18n", "running", "history", "schemas"},
    "tokens": {"core", "i18n"},  # a strategy's name in the learner's language
    "fake": {"history", "i18n", "schemas"},
    "views": {"core", "history", "i18n", "tokens"},
    # grading: lesson 22's code tool runs in the grader's sandbox (jail, limits, kernel_env),
    # imported inside its functions, as the grading package imports the lessons
    "lessons": {"core", "fake", "grading", "history", "i18n", "running", "schemas", "tokens",
                "views"},
    "live": {"core", "fake", "history", "i18n", "schemas"},
    "exercises": {"core", "fake", "history", "i18n", "lessons", "running", "tokens", "views"},
    "grading": {"core", "exercises", "fake", "history", "i18n", "lessons", "running"},
}
for _layer, _allowed in ALLOWED.items():  # every layer may raise looplab's own errors
    if _layer not in ("i18n", "errors", "schemas"):
        _allowed.add("errors")
ALLOWED["top"] = set(ALLOWED)
TOP = {"looplab", "looplab.connect", "looplab.grade"}
# What the core may import besides the standard library and itself (pydantic is the SDK's
# own; running/output.py checks tool output against the SDK's block types with it).
CORE_THIRD_PARTY = {"anthropic", "pydantic"}  # jsonschema: through looplab.schemas
CORE_LINES = 1000  # a guard on reading length, not a goal


def layer_of(module: str) -> str | None:
    if module in TOP:
        return "top"
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else None


def module_name(path: Path, root: Path = SRC) -> str:
    """`looplab/core/loop.py` -> `looplab.core.loop`; `looplab/core/__init__.py` ->
    `looplab.core`."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, root: Path = SRC) -> set[str]:
    """Every module of the package under `root` that `path` imports, at any depth."""
    me = module_name(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    known = {module_name(p, root) for p in root.rglob("*.py")}
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            submodules = {f"{target}.{a.name}" for a in node.names} & known
            found |= submodules
            if len(submodules) < len(node.names):  # a name defined in `target` itself
                found.add(target)
    return {m for m in found if m in known and m != me}


def third_party_of(path: Path) -> set[str]:
    """The top-level names of every non-looplab module `path` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found - {"looplab"}


def graph_of(root: Path) -> dict[str, set[str]]:
    return {module_name(p, root): imports_of(p, root) for p in root.rglob("*.py")
            if "demo_repo" not in p.parts}


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import cycle of `graph`, as the modules along it, or None. The package root
    only re-exports, and is left out."""
    done: set[str] = set()

    def visit(m: str, path: list[str]) -> list[str] | None:
        if m in path:
            return path[path.index(m):] + [m]
        if m in done:
            return None
        for n in sorted(graph.get(m, ())):
            if n != "looplab" and (cycle := visit(n, path + [m])) is not None:
                return cycle
        done.add(m)
        return None

    for m in sorted(graph):
        if m != "looplab" and (cycle := visit(m, [])) is not None:
            return cycle
    return None


PATHS = {module_name(p): p for p in SRC.rglob("*.py") if "demo_repo" not in p.parts}
GRAPH = graph_of(SRC)


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_point_down_the_layers(module: str) -> None:
    mine = layer_of(module)
    assert mine is not None, f"{module} is in no layer of {sorted(ALLOWED)}"
    wrong = sorted(m for m in GRAPH[module] if layer_of(m) not in ALLOWED[mine] | {mine})
    assert not wrong, f"{module} ({mine}) may import only {sorted(ALLOWED[mine])}: {wrong}"


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if layer_of(m) == "core"))
def test_the_core_needs_only_the_standard_library_and_the_sdk(module: str) -> None:
    outside = third_party_of(PATHS[module]) - set(sys.stdlib_module_names) - CORE_THIRD_PARTY
    assert not outside, f"{module} imports {sorted(outside)}"


def test_the_core_is_short_enough_to_read_beside_the_article() -> None:
    lines = sum(len(p.read_text(encoding="utf-8").splitlines())
                for p in (SRC / "core").glob("*.py"))
    assert lines <= CORE_LINES, f"core/ has {lines} lines, more than {CORE_LINES}"


def test_a_layer_violation_is_caught(tmp_path: Path) -> None:
    bad = tmp_path / "looplab" / "core" / "bad.py"
    bad.parent.mkdir(parents=True)
    (tmp_path / "looplab" / "views").mkdir()
    (tmp_path / "looplab" / "views" / "plots.py").write_text("")
    bad.write_text("def f():\n    from ..views import plots\n")
    assert imports_of(bad, tmp_path / "looplab") == {"looplab.views.plots"}


def test_the_edges_of_an_init_are_counted_from_its_own_package(tmp_path: Path) -> None:
    root = tmp_path / "looplab"
    for name, text in {
        "__init__.py": "",
        "a/__init__.py": "from .x import f\n",
        "a/x.py": "from ..b import g\n",
        "b/__init__.py": "from ..a import h\n",  # b -> a -> a.x -> b
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    graph = graph_of(root)
    assert graph["looplab.a"] == {"looplab.a.x"} and graph["looplab.b"] == {"looplab.a"}
    assert find_cycle(graph) == ["looplab.a", "looplab.a.x", "looplab.b", "looplab.a"]


def imports_relatively(path: Path) -> bool:
    return any(isinstance(n, ast.ImportFrom) and n.level
               for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def test_every_package_face_that_imports_has_its_edges() -> None:
    faces = [m for m, p in PATHS.items() if p.name == "__init__.py" and imports_relatively(p)]
    assert len(faces) >= 4 and [m for m in faces if not GRAPH[m]] == []


def test_no_import_cycle() -> None:
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_loop_loads_without_the_fake_or_the_views() -> None:
    code = ("import sys, looplab.core.loop; "
            "print(sorted(m for m in sys.modules if m.startswith(('looplab.fake', 'looplab.views', "
            "'looplab.lessons', 'ipywidgets', 'matplotlib'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_tool_call_is_answered_in_one_place() -> None:
    """`ToolCall.answer` is the only code that writes a call's result or outcome."""
    writes = []
    for module, path in PATHS.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                for leaf in (t.elts if isinstance(t, ast.Tuple) else [t]):
                    if isinstance(leaf, ast.Attribute) and leaf.attr in ("outcome", "is_error"):
                        if not (isinstance(leaf.value, ast.Name) and leaf.value.id == "self"):
                            writes.append(f"{module}:{node.lineno}")
    assert not writes, f"ToolCall fields written outside ToolCall.answer: {writes}"


MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 50


def too_long(path: Path) -> list[str]:
    """What in `path` is over the size limits: the module, or a function (its def to end)."""
    source = path.read_text(encoding="utf-8")
    found = []
    if len(source.splitlines()) > MAX_MODULE_LINES:
        found.append(f"{path.name}: {len(source.splitlines())} lines")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{path.name}: {node.name}() {length} lines")
    return found


def test_every_module_and_function_is_short_enough_to_read() -> None:
    found = [problem for path in sorted(SRC.rglob("*.py")) for problem in too_long(path)]
    assert not found, f"over {MAX_MODULE_LINES} lines a module or {MAX_FUNCTION_LINES} a function"


def test_the_size_check_finds_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "long.py").write_text(f"def long():\n{body}\n")
    assert too_long(tmp_path / "long.py") == [f"long.py: long() {MAX_FUNCTION_LINES + 1} lines"]
    (tmp_path / "short.py").write_text("def short():\n    return 1\n")
    assert too_long(tmp_path / "short.py") == []


def readme_table() -> str:
    readme = (SRC.parents[1] / "README.md").read_text(encoding="utf-8")
    return readme.split("## Where things live", 1)[1].split("\n## ", 1)[0]


def named_paths(table: str) -> set[str]:
    """Every file or folder the table names: a bold `src/looplab/x/` row names `x/` and
    the `name.py` it lists; a `core/loop.py` row names that file."""
    found: set[str] = set()
    for row in table.splitlines():
        if not row.startswith("| "):
            continue
        first, _, rest = row[2:].partition(" | ")
        folders = re.findall(r"`(?:src/looplab/)?([\w/]+/)`", first)
        for folder in folders:
            found.add(folder)
            found |= {folder + f for f in re.findall(r"`(\w+\.py)`", rest)}
        found |= {p.removeprefix("src/looplab/") for p in re.findall(r"`([\w/]+\.py)`", first)}
        if first.count("`") >= 2 and not folders and "/" not in first:  # `connect.py`, ...
            found |= {f"{p}" for p in re.findall(r"`(\w+\.py)`", first)}
    return found


def test_the_readme_table_matches_the_tree() -> None:
    named = named_paths(readme_table())
    shown = {p.removeprefix("src/looplab/") for p in named}
    for path in sorted(shown):
        assert (SRC / path).exists() or (SRC.parents[1] / path).exists(), (
            f"README's 'Where things live' names {path}, which is not in the tree")
    packages = {f"{p.name}/" for p in SRC.iterdir() if (p / "__init__.py").is_file()}
    modules = {p.name for p in SRC.glob("*.py")}
    core = {f"core/{p.name}" for p in (SRC / "core").glob("*.py") if p.name != "__init__.py"}
    missing = sorted((packages | modules | core) - shown - {"__main__.py"})
    assert not missing, f"README's 'Where things live' does not name {missing}"


def test_the_table_check_sees_a_missing_folder() -> None:
    table = readme_table().replace("**`src/looplab/running/`**", "**running**")
    assert "running/" not in {p.removeprefix("src/looplab/") for p in named_paths(table)}
