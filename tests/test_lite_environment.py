"""The browser edition's Python environment (tools/lite/): which wheels a kernel loads as it
starts, and the bytecode added to them, tried with this machine's Python on small wheels made
here (the build runs the same code in Pyodide)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

LITE = Path(__file__).resolve().parents[1] / "tools" / "lite"
sys.path.insert(0, str(LITE))
import compile_wheels  # noqa: E402
import environment  # noqa: E402


def wheel(folder: Path, name: str, version: str, files: dict[str, str],
          requires: tuple[str, ...] = ()) -> Path:
    """A wheel of `files` whose metadata requires `requires`."""
    info = f"{name}-{version}.dist-info"
    metadata = "".join([f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                        *(f"Requires-Dist: {r}\n" for r in requires)])  # fmt: skip
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for file, text in {**files, f"{info}/METADATA": metadata}.items():
            z.writestr(file, text)
        z.writestr(f"{info}/RECORD", "".join(f"{f},,\n" for f in [*files, f"{info}/METADATA"]))
    return path


def python(code: str, path: Path) -> str:
    done = subprocess.run([sys.executable, "-B", "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": str(path)}, check=False, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_an_installed_wheel_imports_its_compiled_modules_whatever_the_sources_say(
    tmp_path: Path,
) -> None:
    built = wheel(tmp_path, "pkg", "1.0", {"pkg/__init__.py": "", "pkg/mod.py": "VALUE = 1\n",
                                           "pkg/template.py": "{% if page %}\n"})
    out = tmp_path / "out"
    assert compile_wheels.main([str(out), str(built)]) == 0
    site = tmp_path / "site"
    with zipfile.ZipFile(out / built.name) as z:
        z.extractall(site)  # as Pyodide unpacks a wheel: the files' times are not kept
        record = z.read("pkg-1.0.dist-info/RECORD").decode()
    tag = sys.implementation.cache_tag
    assert f"pkg/__pycache__/mod.{tag}.pyc,sha256=" in record
    assert "template" not in record.replace("pkg/template.py,,", "")  # not Python: left alone
    # the source stays (tracebacks), and is not what runs: the bytecode is never checked
    (site / "pkg" / "mod.py").write_text("VALUE = 2\n")
    assert python("import pkg.mod; print(pkg.mod.VALUE, pkg.mod.__cached__)", site) == (
        f"1 {site / 'pkg' / '__pycache__' / f'mod.{tag}.pyc'}\n")


def test_a_zip_of_modules_is_imported_from_its_bytecode(tmp_path: Path) -> None:
    """Pyodide's standard library is such a zip, on sys.path as it is (zipimport)."""
    stdlib = tmp_path / "python_stdlib.zip"
    with zipfile.ZipFile(stdlib, "w") as z:
        z.writestr("lib/__init__.py", "")
        z.writestr("lib/words.py", "WORD = 'compiled'\n")
    out = tmp_path / "out"
    compile_wheels.main([str(out), str(stdlib)])
    with zipfile.ZipFile(out / stdlib.name) as z:
        assert sorted(z.namelist()) == ["lib/__init__.py", "lib/__init__.pyc", "lib/words.py",
                                        "lib/words.pyc"]  # fmt: skip
    printed = python("import lib.words as w; print(w.WORD, w.__file__.endswith('.pyc'))",
                     out / stdlib.name)
    assert printed == "compiled True\n"


def test_the_environment_is_what_the_browser_installs_and_nothing_it_would_not(
    tmp_path: Path,
) -> None:
    wheels = [
        wheel(tmp_path, "looplab", "1.0", {"looplab.py": ""},
              ("ui>=2", "native; sys_platform != 'emscripten'", "web[fetch]")),
        wheel(tmp_path, "ui", "2.1", {"ui.py": ""}),
        wheel(tmp_path, "web", "1.0", {"web.py": ""},
              ("fetcher; extra == 'fetch'", "tests; extra == 'test'")),
        wheel(tmp_path, "fetcher", "1.0", {"fetcher.py": ""}),
        wheel(tmp_path, "native", "1.0", {"native.py": ""}),
        wheel(tmp_path, "tests", "1.0", {"tests.py": ""}),
    ]
    found = environment.closure(["looplab"], wheels)
    assert {name: depends for name, (_, depends) in found.items()} == {
        "looplab": ["ui", "web"], "ui": [], "web": ["fetcher"], "fetcher": []}
    entry = environment.lock_entry("looplab", found["looplab"][0], ["ui", "web"])
    assert entry["imports"] == ["looplab"] and entry["file_name"] == "looplab-1.0-py3-none-any.whl"


@pytest.mark.parametrize(("requires", "said"), [
    ("ui>=3", "needs ui>=3, and has ui-2.1-py3-none-any.whl"),
    ("missing", "needs missing, and has no wheel of it"),
])  # fmt: skip
def test_a_wheel_missing_or_too_old_stops_the_build_naming_it(
    tmp_path: Path, requires: str, said: str,
) -> None:
    wheels = [wheel(tmp_path, "looplab", "1.0", {"looplab.py": ""}, (requires,)),
              wheel(tmp_path, "ui", "2.1", {"ui.py": ""})]
    with pytest.raises(SystemExit, match=said):
        environment.closure(["looplab"], wheels)


def test_a_newer_wheel_left_in_the_cache_is_passed_over_for_the_pinned_one(
    tmp_path: Path,
) -> None:
    """A download cache keeps the wheels of earlier builds: after a pin changes, the one that
    satisfies the requirement is used, not the newest."""
    wheels = sorted([wheel(tmp_path, "looplab", "1.0", {"looplab.py": ""},
                           ("sdk==1.2", "conventions")),
                     wheel(tmp_path, "conventions", "1.0", {"conventions.py": ""}, ("api>=1",)),
                     wheel(tmp_path, "sdk", "1.2", {"sdk.py": ""}, ("api==1.2",)),
                     wheel(tmp_path, "api", "1.2", {"api.py": ""}),
                     wheel(tmp_path, "api", "1.3", {"api.py": ""})])
    for roots in (["looplab"], ["conventions", "looplab"]):  # the loose requirement first
        found = environment.closure(roots, wheels)
        assert found["api"][0].name == "api-1.2-py3-none-any.whl"


def test_the_kernel_skips_its_own_installs_of_what_is_preloaded() -> None:
    """jupyterlite-pyodide-kernel's worker installs micropip, piplite, ipykernel, comm,
    pyodide-kernel, jedi and ipython at start unless `loadPyodideOptions.packages` names
    each; a name it does not find there is installed one wheel at a time."""
    build = __import__("runpy").run_path(str(LITE.parent / "build_lite.py"))
    settings = build["LITE_CONFIG"]["jupyter-config-data"]["litePluginSettings"]
    packages = settings["@jupyterlite/pyodide-kernel-extension:kernel"]["loadPyodideOptions"]
    worker = next((Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "@jupyterlite"
                   / "pyodide-kernel-extension" / "static").glob("comlink.worker.*.js"), None)
    if worker is None:
        pytest.skip("jupyterlite-pyodide-kernel is not installed here")
    code = worker.read_text(encoding="utf-8")
    start = code.index("async initKernel(")
    names = code[start:start + 400].split("of[", 1)[1].split("]", 1)[0]
    assert {n.strip('"') for n in names.split(",")} <= set(packages["packages"])
    assert {"micropip", "piplite", "looplab"} <= set(packages["packages"])


def test_jedi_comes_without_other_projects_stubs_and_everything_else_as_it_is(
    tmp_path: Path,
) -> None:
    stubs = "jedi/third_party/typeshed/stubs/requests/api.pyi"
    kept = ["jedi/__init__.py", "jedi/third_party/typeshed/stdlib/json/__init__.pyi"]
    jedi = wheel(tmp_path, "jedi", "0.20.1", dict.fromkeys([*kept, stubs], ""))
    other = wheel(tmp_path, "ui", "1.0", {"ui/stubs/x.pyi": ""})
    trimmed = environment.trimmed(jedi, tmp_path / "trimmed")
    with zipfile.ZipFile(trimmed) as z:
        assert [n for n in z.namelist() if not n.startswith("jedi-")] == kept
        assert stubs not in z.read("jedi-0.20.1.dist-info/RECORD").decode()
    assert environment.trimmed(other, tmp_path / "trimmed") == other
