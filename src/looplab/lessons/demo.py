"""The article's scenario, runnable offline: a small repository, two tools and a demo agent.

    from looplab import run_agent
    from looplab.lessons.demo import TASK, demo_agent, demo_tools
    from looplab.fake import fake_client

    result = run_agent(fake_client(demo_agent()), TASK, tools=demo_tools())

The demo repository (shipped inside the package) has a `login` module whose lockout is off
by one; its tests give 1 failed, 2 passed. The tools only read it: pytest runs without
its cache and without writing bytecode. In the browser, where pytest cannot start,
`run_tests` answers the shipped repository from a recording (`recorded_pytest`).

`TASK`, the tools' descriptions and the demo agent's words are in the language current
when they are read, built or said (`looplab.set_language("zh-CN")` gives the article's own).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import os
import re
import stat
import sys
from importlib.resources import files
from pathlib import Path, PurePosixPath, PureWindowsPath

from ..core.tools import Tool, ToolError, tool
from ..i18n import _, current
from .demo_agent import demo_agent as demo_agent  # re-exported: the tools and the agent, together
from .open_inside import MAX_LINKS, LeadsOutside, LinkLoop, list_files, open_inside, open_root


def task() -> str:
    """The article's task, in the current language (`TASK` reads it when accessed)."""
    return _("Run the tests of the login module; if any fail, find out why.")


def __getattr__(name: str) -> str:
    """`TASK`: the article's task, in the language current when it is read."""
    if name == "TASK":
        return task()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


RECORDING = "demo_pytest.json"
MAX_CHARS = 20_000
"""`read_file` and `run_tests` return at most this many characters."""

_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_SUMMARY_TIME = re.compile(r" in \d+(?:\.\d+)?s(?: \([0-9:.]+\))?(?= *=*$)", re.MULTILINE)


def demo_root() -> Path:
    """The packaged demo repository (read-only use: copy it before editing files)."""
    return Path(str(files("looplab.lessons") / "demo_repo"))


def demo_tools(root: str | os.PathLike[str] | None = None, *, timeout_s: float = 60) -> list[Tool]:
    """`[run_tests, read_file]` working inside `root` (default: the packaged demo repo).

    `read_file` reads regular UTF-8 files under `root` only: no absolute paths, no `..`,
    symlinks followed only while they stay inside, and no file with more than one hard
    link (another link may sit anywhere on the disk; the packaged repo is exempt, as
    installers may hard-link it from their cache). See `looplab.lessons.open_inside`.
    `run_tests` runs pytest on `tests/test_<module>.py` with a `timeout_s` deadline; when
    it returns or times out, every process it started is killed, daemons included.
    """
    base = Path(root) if root is not None else demo_root()
    if not base.is_dir():
        raise ValueError(f"root must be an existing directory, got {str(base)!r}")
    base = base.resolve()
    packaged = base == demo_root().resolve()

    @tool
    def run_tests(module: str) -> str:
        """Run the unit tests of one module of the repository and return pytest's output.

        Call it to check whether a module's tests pass.

        Args:
            module: the module's name, e.g. "login" (runs tests/test_login.py)
        """
        return _run_tests(base, module, timeout_s)

    @tool
    def read_file(path: str) -> str:
        """Read a text file of the repository and return its content.

        Call it to look at source code or logs. Long files are cut at 20,000 characters.

        Args:
            path: path relative to the repository root, e.g. "login.py"
        """
        return _read_file(base, path, hard_links=packaged)

    if current() == "en":  # the docstrings above are the English descriptions
        return [run_tests, read_file]
    return [
        _described(run_tests, _("Run the unit tests of one module of the repository and return "
                                "pytest's output.\n\nCall it to check whether a module's tests "
                                "pass."),
                   module=_('the module\'s name, e.g. "login" (runs tests/test_login.py)')),
        _described(read_file, _("Read a text file of the repository and return its content."
                                "\n\nCall it to look at source code or logs. Long files are "
                                "cut at 20,000 characters."),
                   path=_('path relative to the repository root, e.g. "login.py"')),
    ]


def _described(t: Tool, description: str, **parameters: str) -> Tool:
    """`t` with its description and its parameters' descriptions in another language."""
    schema = copy.deepcopy(t.input_schema)
    for name, text in parameters.items():
        schema["properties"][name]["description"] = text
    return dataclasses.replace(t, description=description, input_schema=schema)


# -- run_tests ---------------------------------------------------------------------------


def _test_modules(root: Path) -> list[str]:
    return sorted(p.name[5:-3] for p in (root / "tests").glob("test_*.py") if p.is_file())


def _run_tests(root: Path, module: str, timeout_s: float) -> str:
    available = ", ".join(_test_modules(root)) or _("(none)")
    if not _MODULE.fullmatch(module):
        raise ToolError(_("invalid module name {module!r}: use a plain Python name. Modules "
                          "with tests: {available}").format(module=module, available=available))
    test_file = root / "tests" / f"test_{module}.py"
    if not test_file.is_file() or test_file.resolve().parent != root / "tests":
        raise ToolError(_("no tests for module {module!r}. Modules with tests: {available}")
                        .format(module=module, available=available))
    if sys.platform == "emscripten":  # Pyodide, in the browser: no process can start
        return recorded_pytest(root, module) or _(
            "run_tests needs a real Python: pytest runs in a process of its own, and the "
            "browser cannot start one. Install looplab locally (make lab) to see pytest's "
            "output.")
    from ..running.processes import run_subprocess  # psutil: not in the browser

    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONDONTWRITEBYTECODE": "1",  # the repo may be inside site-packages: write nothing
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # same output whatever else is installed
        "PYTHONHASHSEED": "0",
        "COLUMNS": "100",  # pytest's line width, so the output is the same everywhere
    }
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no",
            "--tb=short", "-o", "console_output_style=classic", f"tests/test_{module}.py"]
    done = run_subprocess(argv, cwd=root, timeout_s=timeout_s, env=env)
    output = _SUMMARY_TIME.sub("", done.stdout.replace(str(root) + os.sep, "")).strip()
    if "No module named pytest" in output:
        raise ToolError(_("pytest is not installed in this Python: pip install pytest"))
    if done.returncode not in (0, 1):  # 0: all passed, 1: some failed; else pytest itself
        raise ToolError(_("pytest exited with code {code}:\n{output}").format(
            code=done.returncode, output=_cut(output)))
    return _cut(output)


def repo_digest(root: Path) -> str:
    """SHA-256 of the repository at `root`: its files' paths and bytes (caches and hidden
    files left out: a tool run elsewhere may leave them)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not any(
            part == "__pycache__" or part.startswith(".") for part in p.relative_to(root).parts)):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def recorded_pytest(root: Path, module: str) -> str | None:
    """What `run_tests` returned for `module` when the demo repository was exactly as `root`
    is now (demo_pytest.json, written by tools/record_demo_pytest.py), or None. In the
    browser, where pytest cannot start, the shipped repository still answers as it does
    locally; a changed one cannot."""
    recording = json.loads(files("looplab.lessons").joinpath(RECORDING).read_text("utf-8"))
    if recording["digest"] != repo_digest(root):
        return None
    found: str | None = recording["modules"].get(module)
    return found


def _cut(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    return _("[first {n} characters cut]").format(n=len(text) - MAX_CHARS) + "\n" + \
        text[-MAX_CHARS:]


# -- read_file ---------------------------------------------------------------------------


def _read_file(root: Path, path: str, *, hard_links: bool = False) -> str:
    if not path or "\x00" in path:
        raise ToolError(_("refused: give a file path relative to the repository root"))
    if PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute() or (
        PureWindowsPath(path).drive
    ):
        raise ToolError(_("refused: {path!r} is absolute; give a path relative to the "
                          "repository root, e.g. login.py").format(path=path))
    if ".." in PurePosixPath(path.replace("\\", "/")).parts:
        raise ToolError(_("refused: {path!r} contains '..'; only files inside the repository")
                        .format(path=path))
    try:
        root_fd = open_root(root)
    except OSError:  # the root is gone, or a symlink was put in its place
        raise ToolError(_("cannot read {path!r}: the repository directory is gone or was "
                          "replaced").format(path=path)) from None
    try:
        fd = _open(root_fd, root, path)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            if stat.S_ISDIR(info.st_mode):
                raise ToolError(_("{path!r} is a directory. Files: {files}").format(
                    path=path, files=list_files(root_fd, root)))
            raise ToolError(_("refused: {path!r} is not a regular file (device, FIFO or "
                              "socket)").format(path=path))
    finally:
        os.close(root_fd)
    if info.st_nlink > 1 and not hard_links:
        os.close(fd)
        raise ToolError(_("refused: {path!r} has {n} hard links, and one of them may be "
                          "outside the repository; only files with one link are read").format(
                              path=path, n=info.st_nlink))
    with os.fdopen(fd, "rb") as f:
        data = f.read(4 * MAX_CHARS)  # enough bytes for MAX_CHARS characters, and no more
        cut = bool(f.read(1))
    return _decode(path, data, cut, info.st_size)


def _open(root_fd: int, root: Path, path: str) -> int:
    """`open_inside`, its failures turned into the texts the model sees."""
    try:
        return open_inside(root_fd, root, path)
    except LeadsOutside:
        raise ToolError(_("refused: {path!r} leads outside the repository (a symlink)")
                        .format(path=path)) from None
    except LinkLoop:
        raise ToolError(_("refused: {path!r} is a symlink loop (more than {n} links to "
                          "follow)").format(path=path, n=MAX_LINKS)) from None
    except (FileNotFoundError, NotADirectoryError):
        raise ToolError(_("no such file: {path!r}. Files: {files}").format(
            path=path, files=list_files(root_fd, root))) from None
    except OSError as e:
        raise ToolError(_("cannot open {path!r}: {error}").format(path=path, error=e.strerror)) \
            from None


def _decode(path: str, data: bytes, cut: bool, size: int) -> str:
    if b"\x00" in data:
        raise ToolError(_("refused: {path!r} is a binary file; only text files can be read")
                        .format(path=path))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        # a cut read may end inside a character: drop that partial character only
        if not (cut and e.start >= len(data) - 3 and e.reason == "unexpected end of data"):
            raise ToolError(_("refused: {path!r} is not UTF-8 text (a binary file?)")
                            .format(path=path)) from None
        text = data[: e.start].decode("utf-8")
    if cut or len(text) > MAX_CHARS:
        return text[:MAX_CHARS] + "\n" + _("[cut at {n:,} characters of {size:,} bytes]").format(
            n=MAX_CHARS, size=size)
    return text
