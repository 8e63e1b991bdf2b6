"""Lesson 22: model-written Python run by a tool, in the grader's sandbox.

    sandbox = PythonSandbox(workspace())          # a scratch copy of the demo repository
    run_python = python_tool(sandbox)             # a tool: run_python(code) -> its output
    result = run_agent(client, task, tools=[run_python])

Each call runs `python -c <code>` in a fresh bubblewrap (the grader's `Jail`: no network,
its own processes, the system and the Python environment read-only, the scratch folder
the one place whose writes outlive the run: anything else it writes lands in the
sandbox's own in-memory root, `/tmp` included, and vanishes with it), under the grader's
rlimits (memory, file size, processes, open files, CPU seconds) and a wall-clock time
limit, with a scrubbed environment (no API key). The rule where bubblewrap cannot start is
the grader's: refuse (`SandboxMissing`, saying what running without it allows) unless told
`unsandboxed=True`; then only the limits hold. A run that fails, or that a limit stops,
comes back as an `is_error` result, so an escape attempt is a failed tool call the model
reads, never an exception in the loop.
"""

from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..core.tools import Tool, ToolError, tool
from ..errors import LooplabError
from ..i18n import _
from .demo import demo_root

TAIL = 1_500
"""Characters of output a tool result keeps (the end: where an exception is)."""
GRACE_S = 2.0
"""Seconds a stopped run has to exit before it is killed."""


class SandboxMissing(LooplabError, RuntimeError):
    """Bubblewrap cannot start here, and running unsandboxed was not asked for."""


@dataclass(frozen=True)
class CodeLimits:
    """What one run may use. The first five are the grader's rlimits (`grading.limits`)."""

    memory_mib: int = 512
    file_mib: int = 16
    processes: int = 32
    open_files: int = 64
    cpu_s: int = 10
    time_s: float = 20.0
    """Wall-clock seconds, sleeping included; then the run is killed."""

    def request(self) -> dict[str, int]:
        return {"memory_mib": self.memory_mib, "file_mib": self.file_mib,
                "processes": self.processes, "open_files": self.open_files,
                "cpu_s": self.cpu_s}  # fmt: skip


@dataclass(frozen=True)
class CodeRun:
    """How one run ended: its exit code (`None`: killed at the time limit; negative: killed
    by that signal), what it printed, and the limit that stopped it, if one did."""

    exit_code: int | None
    stdout: str
    stderr: str
    limit: str | None = None
    """"time", "cpu", "memory", "file", "processes", "open_files" or None."""


def workspace(source: Path | None = None) -> Path:
    """A fresh scratch folder holding a copy of `source` (default: the demo repository),
    inside a folder of its own in the system's temp folder, removed when Python exits."""
    base = Path(tempfile.mkdtemp(prefix="looplab-code-"))
    atexit.register(shutil.rmtree, base, ignore_errors=True)  # gone when Python exits
    work = base / "work"
    shutil.copytree(source or demo_root(), work)
    return work


def why_no_sandbox(folder: Path) -> str | None:
    """None when bubblewrap starts here; else why not, in one line."""
    if sys.platform == "emscripten":
        return _("this Python (Pyodide, in the browser) can start no process: run lesson 22 "
                 "in a local install of looplab, on Linux with bubblewrap")
    from ..grading.jail import jail_for  # not at the top: the grading package imports lessons

    return jail_for(folder.parent, ()).why_not()


def refusal(why: str) -> str:
    """What `SandboxMissing` says: why, what running unsandboxed allows, what to do."""
    return _("bubblewrap cannot start here ({why}): model-written code would run as you, "
             "read and write every file you can, reach the network and see your "
             "environment. Install bubblewrap (Linux), or pass unsandboxed=True to run it "
             "with the limits on CPU, memory, time and file size only.").format(why=why)


class PythonSandbox:
    """Runs code in `folder` (writable), in bubblewrap, under `limits`; see the module."""

    def __init__(self, folder: Path, *, limits: CodeLimits = CodeLimits(),
                 unsandboxed: bool = False) -> None:  # fmt: skip
        self.folder, self.limits = Path(folder).resolve(), limits
        self.why_not = why_no_sandbox(self.folder)
        if self.why_not is not None and sys.platform == "emscripten":
            raise SandboxMissing(self.why_not)
        if self.why_not is not None and not unsandboxed:
            raise SandboxMissing(refusal(self.why_not))
        self.sandboxed = self.why_not is None

    def command(self, code: str) -> list[str]:
        argv = [sys.executable, "-E", "-s", "-c", code]
        if not self.sandboxed:
            return argv
        from ..grading.jail import jail_for

        return jail_for(self.folder.parent, ()).command(argv, self.folder)

    def run(self, code: str) -> CodeRun:
        from ..grading.kernel_env import scrubbed_env
        from ..grading.limits import apply, killed_by
        from ..running.processes import kill_marked, marked_env, new_mark

        mark = new_mark()  # every process of the run carries it: all are killed after
        env = marked_env(mark, scrubbed_env(HOME=str(self.folder), PYTHONUTF8="1",
                                            PYTHONDONTWRITEBYTECODE="1", MALLOC_ARENA_MAX="2"))
        request, own_users = self.limits.request(), self.sandboxed
        process = subprocess.Popen(
            self.command(code), cwd=self.folder, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            preexec_fn=lambda: apply(request, own_users))  # the child's limits, set before exec
        try:
            out, err = process.communicate(timeout=self.limits.time_s)
        except subprocess.TimeoutExpired:
            kill_marked(mark, process.pid)
            out, err = process.communicate(timeout=GRACE_S)
            return CodeRun(None, _text(out), _text(err), "time")
        finally:
            kill_marked(mark, process.pid)  # what it left running in the background
        code_ = process.returncode
        if self.sandboxed and code_ > 128:  # bwrap exits 128 + n for a child killed by n
            code_ = -(code_ - 128)
        return CodeRun(code_, _text(out), _text(err), killed_by(code_) or _raised_at(err))


def _raised_at(err: bytes) -> str | None:
    """The limit the exception on stderr's last line shows the run ran into, if any."""
    from ..grading.limits import hit

    last = _text(err).strip().splitlines()[-1:] or [""]
    name, _sep, value = last[0].partition(": ")
    return hit(name.rpartition(".")[2], value)


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


def result_of(run: CodeRun) -> str:
    """The tool result of a run: its output; a run that failed, or that a limit stopped,
    raises `ToolError` (an `is_error` result) saying how it ended, with the output's end."""
    output = (run.stdout + run.stderr).strip()[-TAIL:]
    if run.limit is not None:
        raise ToolError(_("stopped by its {limit} limit\n{output}").format(
            limit=run.limit, output=output).strip())
    if run.exit_code != 0:
        raise ToolError(_("exit code {code}\n{output}").format(
            code=run.exit_code, output=output).strip())
    return output or _("(no output)")

# looplab's own reference, kept where a graded kernel drops the public name (grading/hiding.py)
_result_of = result_of


def python_tool(sandbox: PythonSandbox) -> Tool:
    """`run_python(code)`: the tool the model calls, running its code in `sandbox`."""

    @tool
    def run_python(code: str) -> str:
        """Run Python code in the repository's folder and return what it prints. No network;
        only this folder is writable."""
        return _result_of(sandbox.run(code))

    return run_python
