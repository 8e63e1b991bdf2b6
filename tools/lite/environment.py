"""The browser edition's Python environment, loaded with Pyodide itself when a kernel starts.

Without it, a kernel's start installs its own packages one at a time (micropip resolving
ipykernel, IPython, jedi ... from the site's index), a lesson's first cell installed looplab
and its dependencies the same way, and `import looplab` compiled anthropic's 3,000 modules
from source: a first output 5x slower than a lesson in local JupyterLab. Here:

- the environment is resolved once, at build time: every wheel the kernel and looplab need,
  from their metadata with the browser's markers (`closure`);
- each wheel, and Pyodide's standard library, gets the compiled bytecode of Pyodide's own
  Python (compile_wheels.py, run in Pyodide under Node), so an import reads modules instead
  of compiling them (measured in Chromium: Pyodide's start 4 s -> 1.5 s, `import anthropic`
  5-6 s -> 2 s);
- jedi (IPython's completion) comes without the type stubs of other projects' packages
  (`TRIMMED`): 4,800 of its 5,700 files, a quarter of a kernel's start to unpack, used
  only to complete code of packages this environment does not have (Django, requests ...);
- Pyodide's lock names them all with their dependencies (`lock_entry`), and the kernel's
  `loadPyodideOptions.packages` (`PRELOADED`) has Pyodide load them at start, all at once;
  the kernel then skips its own installs of what is already there.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import zipfile
from collections.abc import Callable, Iterable
from email.parser import HeaderParser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

HERE = Path(__file__).resolve().parent
# what pyproject.toml's markers see in the browser: Pyodide 314 (Python 3.14, emscripten)
BROWSER_MARKERS = {"sys_platform": "emscripten", "platform_system": "Emscripten",
                   "python_version": "3.14", "python_full_version": "3.14.2",
                   "implementation_name": "cpython", "platform_machine": "wasm32",
                   "os_name": "posix", "extra": ""}
# What the Pyodide kernel installs at start unless `loadPyodideOptions.packages` names it
# (jupyterlite-pyodide-kernel's worker: micropip, piplite, then ipykernel, comm,
# pyodide-kernel, jedi, ipython), and looplab, which every lesson imports first.
PRELOADED = ("micropip", "piplite", "ipykernel", "comm", "pyodide-kernel", "jedi", "ipython",
             "looplab")
# the kernel extension's own wheels (piplite, pyodide-kernel, a stand-in ipykernel and
# widgetsnbextension), in the folder its build copies into the site
KERNEL_WHEELS = "@jupyterlite/pyodide-kernel-extension/static/pypi"

# files left out of a wheel, by the folder they are in: jedi's stubs of third-party packages
# (typeshed's `stubs/`, django-stubs); it keeps typeshed's standard library, which it needs
TRIMMED = {"jedi": ("jedi/third_party/typeshed/stubs/", "jedi/third_party/django-stubs/")}

Run = Callable[..., "subprocess.CompletedProcess[str]"]


def name_of(wheel: Path) -> str:
    return canonicalize_name(wheel.name.split("-")[0])


def version_of(wheel: Path) -> Version:
    return Version(wheel.name.split("-")[1])


def kernel_wheels() -> list[Path]:
    """The Pyodide kernel's wheels, as installed with jupyterlite-pyodide-kernel."""
    from jupyter_core.paths import jupyter_path

    for share in jupyter_path("labextensions"):
        folder = Path(share) / KERNEL_WHEELS
        if folder.is_dir():
            return sorted(folder.glob("*.whl"))
    raise SystemExit(f"no {KERNEL_WHEELS}: is jupyterlite-pyodide-kernel installed?")


def requirements(wheel: Path, extras: Iterable[str] = ()) -> list[Requirement]:
    """What `wheel` (with `extras`) depends on in the browser: its Requires-Dist whose
    markers hold there."""
    with zipfile.ZipFile(wheel) as z:
        metadata = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        headers = HeaderParser().parsestr(z.read(metadata).decode("utf-8"))
    wanted = [Requirement(text) for text in headers.get_all("Requires-Dist") or []]
    return [r for r in wanted if r.marker is None or any(
        r.marker.evaluate({**BROWSER_MARKERS, "extra": extra}) for extra in ("", *extras))]


def closure(roots: Iterable[str], wheels: Iterable[Path]) -> dict[str, tuple[Path, list[str]]]:
    """Each package `roots` need in the browser: name -> (its wheel, the names it depends on).
    Of two wheels of one package, the later one in `wheels` that satisfies every requirement
    on it is used (the kernel's stand-ins come last; an older download left in the cache after a
    pin changed is passed over); none that does stops the build."""
    by_name: dict[str, list[Path]] = {}
    for w in wheels:
        by_name.setdefault(name_of(w), []).append(w)
    found: dict[str, tuple[Path, list[str]]] = {}
    extras: dict[str, set[str]] = {}
    specs: dict[str, SpecifierSet] = {}
    todo = [Requirement(r) for r in roots]
    while todo:
        wanted = todo.pop()
        name = canonicalize_name(wanted.name)
        specs[name] = specs.get(name, SpecifierSet()) & wanted.specifier
        have = by_name.get(name, [])
        fits = [w for w in have if specs[name].contains(version_of(w), prereleases=True)]
        if not fits:
            raise SystemExit(f"the browser edition needs {wanted.name}{specs[name]}, and has "
                             f"{', '.join(w.name for w in have) or 'no wheel of it'}")
        wheel = fits[-1]
        if name in found and found[name][0] == wheel and wanted.extras <= extras[name]:
            continue
        extras[name] = extras.get(name, set()) | wanted.extras
        needs = requirements(wheel, extras[name])
        found[name] = (wheel, sorted({canonicalize_name(r.name) for r in needs}))
        todo += needs
    return found


def trimmed(wheel: Path, out: Path) -> Path:
    """`wheel` without the files `TRIMMED` names for it (and their RECORD lines), in `out`;
    `wheel` itself when nothing is left out."""
    dropped = TRIMMED.get(name_of(wheel), ())
    if not dropped:
        return wheel
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(
            out / wheel.name, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.startswith(dropped):
                continue
            if info.filename.endswith(".dist-info/RECORD"):
                data = b"".join(line for line in data.splitlines(keepends=True)
                                if not line.decode().startswith(dropped))
            target.writestr(info, data)
    return out / wheel.name


def compiled(wheels: list[Path], cache: Path, pyodide: Path, run: Run) -> list[Path]:
    """`wheels` with Pyodide's bytecode added, each kept in `cache` under its own hash so a
    rebuild compiles only what changed (looplab's wheel, as a rule); what no longer is one of
    `wheels` is removed from `cache`."""
    def target(wheel: Path) -> Path:
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()[:16]
        return cache / digest / wheel.name

    missing = [w.resolve() for w in wheels if not target(w).exists()]
    if missing:
        work = cache / "new"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        done = run(["node", str(HERE / "pyodide_run.mjs"), str(pyodide.resolve()),
                    str(HERE / "compile_wheels.py"), str(work.resolve()), *map(str, missing)])
        if done.returncode != 0:
            raise SystemExit("compiling the browser wheels in Pyodide failed (needs node)")
        for wheel in missing:
            target(wheel).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(work / wheel.name, target(wheel))
        shutil.rmtree(work)
    kept = [target(w) for w in wheels]
    for old in set(cache.iterdir()) - {k.parent for k in kept}:  # earlier builds' looplab
        shutil.rmtree(old)
    return kept


def lock_entry(name: str, wheel: Path, depends: list[str]) -> dict[str, object]:
    """Pyodide's lock entry for `wheel`, a file beside the lock."""
    with zipfile.ZipFile(wheel) as z:
        tops = {entry.split("/")[0] for entry in z.namelist()}
    imports = sorted(t.removesuffix(".py") for t in tops
                     if not t.endswith((".dist-info", ".data")))
    return {"name": name, "version": str(version_of(wheel)), "file_name": wheel.name,
            "install_dir": "site", "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
            "package_type": "package", "imports": imports, "depends": depends,
            "unvendored_tests": False}
