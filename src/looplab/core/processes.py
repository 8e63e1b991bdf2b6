"""Processes a tool starts, and killing all of them: children, grandchildren and daemons.

A process group is not enough: a child can call `setsid()` or double-fork and leave the
group. So every process a tool starts carries a marker in its environment
(`LOOPLAB_RUN_MARK=<random token>`), which its descendants inherit, and `kill_marked`
kills every process of this user whose environment carries it (read from `/proc`, so
this part works on Linux; elsewhere only the process group is killed). A descendant that
wipes its own environment escapes the marker; the group kill still catches it unless it
also left the group.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from .deadline import time_left
from .tools import ToolError

MARK = "LOOPLAB_RUN_MARK"


def new_mark() -> str:
    """A fresh token for one tool call's processes."""
    return secrets.token_hex(8)


def marked_env(mark: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """`env` (default: this process's) with the marker added."""
    out = dict(os.environ if env is None else env)
    out[MARK] = mark
    return out


def marked_pids(mark: str) -> list[int]:
    """Live processes whose environment carries `mark` (none off Linux)."""
    needle = f"{MARK}={mark}".encode()
    found = []
    me = os.getpid()
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone already, or not ours
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def kill_marked(mark: str, group: int | None = None) -> None:
    """Kill process group `group` and every process carrying `mark`, until none is left."""
    if group is not None:
        _signal_group(group)
    for _ in range(50):  # a forking process may add children while we kill
        pids = marked_pids(mark)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)


def _signal_group(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass  # already gone


def run_subprocess(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str],
    timeout_s: float | None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `argv` (no shell); when it ends or times out, kill everything it started.

    The timeout is the smaller of `timeout_s` and what the loop still waits for this call
    (`time_left()`). The deadline holds even when a daemonised grandchild
    keeps the output pipe open. Raises `ToolError("timed out after N s ...")` on timeout.
    """
    left = time_left()
    limit = timeout_s if left is None else left if timeout_s is None else min(timeout_s, left)
    mark = new_mark()
    # Output goes to a file, not a pipe: a daemon that inherited the pipe would keep it
    # open, and reading to its end would wait for the daemon instead of the process.
    with tempfile.TemporaryFile() as sink:
        proc = subprocess.Popen(
            list(argv), cwd=cwd, env=marked_env(mark, env),
            stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
            start_new_session=os.name == "posix",  # its own group, so children die with it
        )
        try:
            proc.wait(timeout=limit)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            kill_marked(mark, proc.pid if os.name == "posix" else None)
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        sink.seek(0)
        out = sink.read().decode("utf-8", errors="replace")
    if timed_out:
        raise ToolError(
            f"timed out after {limit:g} s; the process and its children were killed. "
            "Try a smaller or different call."
        )
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, None)
