"""Build the browser edition (JupyterLite): `make lite` writes build/site/lite/.

    python tools/build_lite.py                     # -> build/site/lite/
    python tools/build_lite.py --out DIR --cache DIR
    python tools/build_lite.py --verbose           # each command and all it prints

Every lesson of both editions, their student copies and the lesson maps, runnable in the
browser on Pyodide (Python compiled to WebAssembly), with looplab's fake: no server, no
install, no key. Everything comes from the package registries (npm: the Pyodide runtime;
PyPI: the browser wheels), and is kept in build/lite-cache/, so a rebuild needs no network.

- Pyodide's npm package holds the runtime and a lock naming 356 packages whose wheels it
  does not ship (with that lock nothing installs offline). The lock written here names
  what the kernel and looplab need, with their wheels beside it, compiled for Pyodide, and
  a kernel loads them all as it starts (tools/lite/environment.py).
- The browser wheels are looplab's dependencies as pip resolves them for Pyodide's
  platform: pyproject.toml's markers leave out what has no browser wheel (matplotlib,
  psutil, ...). pip evaluates markers for this machine, so a dependency that only the
  browser needs (httpx2-jsfetch) is named here.
- Each notebook gets a first cell `%pip install looplab`, which finds looplab installed (the
  public package index is never asked: `disablePyPIFallback`). Its stored outputs are
  written with each text as one string, as Jupyter's server hands them to JupyterLab.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import subprocess
import sys
import tarfile
import urllib.parse
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "lite"))
import environment  # noqa: E402  (tools/lite/: the browser's Python environment)

PYODIDE = "314.0.6"  # what jupyterlite-pyodide-kernel 0.8.6 runs (Python 3.14)
PLATFORM = ["--platform", "pyemscripten_2026_0_wasm32", "--python-version", "3.14",
            "--implementation", "cp", "--abi", "cp314", "--only-binary=:all:"]
# What the browser needs beyond looplab's own dependencies, or pins differently from
# this machine: the kernel's boot packages (micropip, packaging), the widgets' comm,
# httpx2's fetch transport (a dependency on emscripten only), a real pydantic-core (other
# platform tags find a 2022 placeholder), and jsonschema without rpds-py (no browser wheel).
BROWSER_EXTRAS = ["micropip==0.11.1", "packaging==26.1", "comm", "httpx2-jsfetch",
                  "pydantic-core>=2", "jsonschema>=4.17,<4.18"]
LESSONS = "[0-9][0-9]_*.ipynb"
SITE_FOLDER = "lite"  # where `make docs` puts the browser edition in the docs site
OUT = ROOT / "build" / "site" / SITE_FOLDER
APP = "lab/index.html"  # the JupyterLite app that opens the notebook named by `?path=`
INSTALL = {"": "# the browser edition: looplab comes with the page; this checks it is there",
           "zh-CN": "# 浏览器版：looplab 随页面一起装好了，这个 cell 只做确认"}
LITE_CONFIG = {"jupyter-lite-schema-version": 0, "jupyter-config-data": {
    "litePluginSettings": {"@jupyterlite/pyodide-kernel-extension:kernel": {
        "disablePyPIFallback": True,
        "loadPyodideOptions": {"packages": list(environment.PRELOADED)}}}}}


VERBOSE = False  # --verbose (`make lite V=1`): each command, and everything it prints
SHOWN_ON_FAILURE = 60  # the last lines of what a failed command printed


def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run `command`. Quiet unless --verbose: what it prints is kept, and shown (with the
    command) only when it fails. A caller that captures the output itself sees it as is."""
    shown = " ".join(str(c) for c in command)
    if VERBOSE:
        print("+", shown, flush=True)
    if VERBOSE or "capture_output" in kwargs:
        return subprocess.run(command, check=False, text=True, **kwargs)  # type: ignore[call-overload, no-any-return]
    done: subprocess.CompletedProcess[str] = subprocess.run(
        command, check=False, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        lines = done.stdout.splitlines()[-SHOWN_ON_FAILURE:]
        print("\n".join(["+ " + shown, *lines]), file=sys.stderr, flush=True)
    return done


def pip(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "pip", "-q", *map(str, args)]


def cached_or_fetched(command: list[str], cache: Path) -> None:
    """`command` from the cache alone (no network); if the cache lacks something, again
    with the package index, saving what it fetches into the cache."""
    offline = run([*command, "--no-index", "--find-links", str(cache)], capture_output=True)
    if offline.returncode != 0 and run(command).returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}")


def pyodide_tarball(cache: Path) -> Path:
    tarball = cache / f"pyodide-{PYODIDE}.tgz"
    if not tarball.exists():
        if run(["npm", "pack", f"pyodide@{PYODIDE}", "--pack-destination", str(cache)],
               capture_output=True).returncode != 0 or not tarball.exists():
            raise SystemExit(f"npm pack pyodide@{PYODIDE} failed (needs npm and the npm registry)")
    return tarball


def browser_wheels(cache: Path, constraints: Path) -> list[Path]:
    """looplab's dependencies as wheels for Pyodide, in the cache; return their paths."""
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wanted = dependencies()
    # looplab's own dependencies at the versions of constraints.txt, the ones the stored
    # outputs were made with (not jsonschema: see BROWSER_EXTRAS); the rest as pip resolves
    # them for the browser (this machine's IPython, say, needs psutil)
    names = {canonical(w) for w in wanted} - {"jsonschema"}
    pins = [line for line in constraints.read_text().splitlines()
            if "==" in line and not line.startswith("#")
            and canonical(line.split("==")[0]) in names]
    cached_or_fetched(pip("download", *PLATFORM, "-d", wheels, *wanted, *pins,
                          *BROWSER_EXTRAS), wheels)
    return sorted(wheels.glob("*.whl"))


def canonical(requirement: str) -> str:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    return canonicalize_name(Requirement(requirement).name)


def dependencies() -> list[str]:
    """looplab's dependencies whose markers hold in the browser (Pyodide: emscripten)."""
    from packaging.requirements import Requirement

    import_tomllib = __import__("tomllib" if sys.version_info >= (3, 11) else "tomli")
    project = import_tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    kept = []
    for text in project["dependencies"]:
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate(
                environment.BROWSER_MARKERS):
            requirement.marker = None
            kept.append(str(requirement))
    return kept


def looplab_wheel(cache: Path, out: Path) -> Path:
    """looplab itself as a wheel, built offline once setuptools is in the cache."""
    for old in out.glob("looplab-*.whl"):
        old.unlink()
    backend = cache / "build-backend"
    backend.mkdir(parents=True, exist_ok=True)
    if run(pip("wheel", "--no-deps", "-w", out, "--no-index", "--find-links", backend, ROOT),
           capture_output=True).returncode != 0:
        cached_or_fetched(pip("download", "-d", backend, "setuptools>=77", "wheel"), backend)
        if run(pip("wheel", "--no-deps", "-w", out, "--no-index", "--find-links", backend,
                   ROOT)).returncode != 0:
            raise SystemExit("building looplab's wheel failed")
    return next(out.glob("looplab-*.whl"))


def pyodide_folder(cache: Path, work: Path) -> Path:
    """Pyodide's npm package, unpacked as `work`/pyodide."""
    folder = work / "pyodide"
    shutil.rmtree(folder, ignore_errors=True)
    with tarfile.open(pyodide_tarball(cache)) as tar:
        tar.extractall(work / "npm", filter="data")
    shutil.move(work / "npm" / "package", folder)
    shutil.rmtree(work / "npm")
    return folder


def pyodide_runtime(cache: Path, work: Path, wheels: list[Path]) -> Path:
    """Pyodide, its standard library compiled, with a lock naming the environment the kernel
    loads as it starts (its packages and looplab's, compiled), their wheels beside it, as the
    .tar.bz2 the build unpacks (only `.bz2`, with `pyodide/` at its top)."""
    folder = pyodide_folder(cache, work)
    needed = environment.closure(environment.PRELOADED, wheels)
    names = list(needed)
    stdlib = folder / "python_stdlib.zip"  # the standard library, compiled as well
    wanted = [environment.trimmed(needed[n][0], work / "trimmed") for n in names]
    stdlib_ready, *ready = environment.compiled([stdlib, *wanted], cache / "compiled", folder,
                                                run)
    shutil.copyfile(stdlib_ready, stdlib)
    lock = json.loads((folder / "pyodide-lock.json").read_text())
    lock["packages"] = {}
    for name, wheel in zip(names, ready, strict=True):
        shutil.copyfile(wheel, folder / wheel.name)
        lock["packages"][name] = environment.lock_entry(name, wheel, needed[name][1])
    (folder / "pyodide-lock.json").write_text(json.dumps(lock, indent=1))
    for sourcemap in folder.glob("*.map"):
        sourcemap.unlink()
    bz2 = work / "pyodide.tar.bz2"
    with tarfile.open(bz2, "w:bz2") as tar:
        tar.add(folder, arcname="pyodide")
    return bz2


def with_install_cell(notebook: Path, edition: str) -> str:
    """The notebook as the browser edition shows it: a first cell installs looplab, and every
    text is one string. A notebook file keeps a multi-line source or output as a list of
    lines; Jupyter's server joins them when it reads the file (nbformat's `reads` does), but
    JupyterLite serves the file as it is, and JupyterLab shows an output's list of lines
    joined by commas (`,turn 2: ...`)."""
    nb = nbformat.reads(notebook.read_text(encoding="utf-8"), as_version=nbformat.NO_CONVERT)
    cell = {"cell_type": "code", "execution_count": None, "id": "lite-install",
            "metadata": {"tags": ["lite-install"]}, "outputs": [],
            "source": f"{INSTALL[edition]}\n%pip install looplab"}
    nb["cells"] = [cell, *copy.deepcopy(nb["cells"])]
    return json.dumps(nb, ensure_ascii=False, indent=1) + "\n"


def lite_path(notebooks: Path, notebook: Path) -> str:
    """Where a notebook of notebooks/ is in the browser edition: the same path."""
    return notebook.relative_to(notebooks).as_posix()


def lite_url(notebooks: Path, notebook: Path) -> str:
    """The address, relative to the browser edition's folder, that opens `notebook`."""
    return f"{APP}?path={urllib.parse.quote(lite_path(notebooks, notebook))}"


def contents(notebooks: Path, files: Path) -> list[Path]:
    """Both editions' lessons, student copies and lesson maps, laid out as in notebooks/."""
    shutil.rmtree(files, ignore_errors=True)
    written = []
    for edition in INSTALL:
        for folder in (notebooks / edition, notebooks / edition / "exercises"):
            for lesson in sorted(folder.glob(LESSONS)):
                target = files / lite_path(notebooks, lesson)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(with_install_cell(lesson, edition), encoding="utf-8")
                written.append(target)
        if (notebooks / edition / "README.md").exists():
            (files / edition).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(notebooks / edition / "README.md", files / edition / "README.md")
    if not written:
        raise SystemExit(f"no lessons ({LESSONS}) in {notebooks}: nothing to build")
    return written


def build(notebooks: Path, out: Path, cache: Path) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    work = cache / "work"
    work.mkdir(exist_ok=True)
    # the kernel's own wheels last: its stand-in widgetsnbextension is the one used
    wheels = [*browser_wheels(cache, ROOT / "constraints.txt"),
              looplab_wheel(cache, work / "looplab"), *environment.kernel_wheels()]
    bz2 = pyodide_runtime(cache, work, wheels)
    contents(notebooks, work / "files")
    (work / "jupyter-lite.json").write_text(json.dumps(LITE_CONFIG, indent=1))
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(work / "_output", ignore_errors=True)
    (work / ".jupyterlite.doit.db").unlink(missing_ok=True)
    command = [sys.executable, "-m", "jupyterlite_core", "build", "--no-sourcemaps",
               "--lite-dir", str(work), "--output-dir", str(out),
               "--contents", str(work / "files"), "--pyodide", str(bz2)]
    if run(command, cwd=work).returncode != 0:
        raise SystemExit("jupyter lite build failed")


def size_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, default=ROOT / "build" / "lite-cache",
                        help="downloads kept for an offline rebuild, and the work folder")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="show each command (pip, npm, jupyter lite) and all it prints")
    args = parser.parse_args()
    global VERBOSE
    VERBOSE = args.verbose
    build(args.notebooks.resolve(), args.out.resolve(), args.cache.resolve())
    print(f"browser edition: {args.out / 'index.html'} ({size_mb(args.out):.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
