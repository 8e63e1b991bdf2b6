"""The package's layers import in one direction only, and the loop stands on its own.

    core  <-  fake   <-  lessons  <-  connect.py, __init__.py
    core  <-  views  <-  lessons
    core  <-  fake   <-  live     <-  connect.py, __init__.py
    (fake and views both stand on the core and know nothing of each other)

Imports inside functions count too: they are still dependencies, only later.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "looplab"
ALLOWED = {
    "core": {"core"},
    "fake": {"core", "fake"},
    "views": {"core", "views"},
    "lessons": {"core", "fake", "views", "lessons"},
    "live": {"core", "fake", "live"},
    "top": {"core", "fake", "views", "lessons", "live", "top"},
}
TOP = {"looplab", "looplab.connect", "looplab.grade"}
# What the core may import besides the standard library and itself (pydantic is the SDK's
# own; tool_output.py checks tool output against the SDK's block types with it).
CORE_THIRD_PARTY = {"anthropic", "jsonschema", "pydantic"}


def layer_of(module: str) -> str | None:
    if module in TOP:
        return "top"
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else None


def module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every looplab module `path` imports, at any depth of its code."""
    return imports_of_at(path, SRC)


def imports_of_at(path: Path, root: Path) -> set[str]:
    me = ".".join(path.relative_to(root.parent).with_suffix("").parts)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("looplab")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("looplab"):
                found.add(target)
                found |= {f"{target}.{a.name}" for a in node.names}
    known = {".".join(p.relative_to(root.parent).with_suffix("").parts) for p in root.rglob("*.py")}
    known |= {k.removesuffix(".__init__") for k in known}
    return {m for m in found if m in known and m != me} if root == SRC else found


def third_party_of(path: Path) -> set[str]:
    """The top-level names of every non-looplab module `path` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found - {"looplab"}


PATHS = {module_name(p): p for p in SRC.rglob("*.py") if "demo_repo" not in p.parts}
GRAPH = {m: imports_of(p) for m, p in PATHS.items()}


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_point_down_the_layers(module: str) -> None:
    mine = layer_of(module)
    assert mine is not None, f"{module} is outside core/, fake/, views/, lessons/, live/"
    wrong = sorted(m for m in GRAPH[module] if layer_of(m) not in ALLOWED[mine])
    assert not wrong, f"{module} ({mine}) may import only {sorted(ALLOWED[mine])}: {wrong}"


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if layer_of(m) == "core"))
def test_the_core_needs_only_the_standard_library_and_the_sdk(module: str) -> None:
    outside = third_party_of(PATHS[module]) - set(sys.stdlib_module_names) - CORE_THIRD_PARTY
    assert not outside, f"{module} imports {sorted(outside)}"


def test_a_layer_violation_is_caught(tmp_path: Path) -> None:
    bad = tmp_path / "looplab" / "core" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("def f():\n    from ..views import plots\n")
    assert "looplab.views.plots" in imports_of_at(bad, tmp_path / "looplab")


def test_no_import_cycle() -> None:
    done: set[str] = set()

    def visit(m: str, path: list[str]) -> None:
        if m in path:
            cycle = path[path.index(m):] + [m]
            pytest.fail("import cycle: " + " -> ".join(cycle))
        if m in done:
            return
        for n in sorted(GRAPH.get(m, ())):
            if n != "looplab":  # the package root only re-exports
                visit(n, path + [m])
        done.add(m)

    for m in sorted(GRAPH):
        if m != "looplab":
            visit(m, [])


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
