"""Processes a tool starts, and killing all of them: children, grandchildren and daemons.

A process group is not enough: a child can call `setsid()` or double-fork and leave the
group. So every process a tool starts carries a marker in its environment
(`LOOPLAB_RUN_MARK=<random token>`), which its descendants inherit, and `kill_marked`
kills every process of this user whose environment carries it (read from `/proc`, so
this part works on Linux; elsewhere only the process group is killed). A descendant that
wipes its own environment escapes the marker; the group kill still catches it unless it
also left the group.

A forked Python process that never calls `exec` shows the environment it started with
in `/proc`, not a marker set later. So the process that runs an `isolate="process"` tool
becomes a *subreaper* (Linux): a daemon that double-forks away from it is re-parented to
it instead of to init, and `kill_tree` finds and kills everything below it.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .deadline import time_left
from .output import ToolError

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
    _kill_until_gone(lambda: marked_pids(mark))


_PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
_prctl: Any = None


def prepare_subreaper() -> None:
    """Load what `become_subreaper` needs, before a fork (a forked child must not import)."""
    global _prctl
    if _prctl is None and sys.platform.startswith("linux"):
        try:
            import ctypes  # only here: most runs never need it

            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl = False


def become_subreaper() -> bool:
    """Make this process the parent of its orphaned descendants (Linux); True if it is."""
    return bool(_prctl) and _prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def descendants(pid: int) -> list[int]:
    """Live processes below `pid` in the process tree (read from `/proc`; none elsewhere)."""
    children: dict[int, list[int]] = {}
    proc = Path("/proc")
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            state, parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, ValueError):  # gone already, or not a process
            continue
        if state != "Z":  # a zombie is dead already, and cannot be killed
            children.setdefault(int(parent), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        below = children.get(todo.pop(), [])
        found += below
        todo += below
    return found


def kill_tree(pid: int) -> None:
    """Kill every process below `pid` (which stays), until none is left."""
    if pid <= 1:
        raise ValueError(f"kill_tree({pid}) would reach every process")
    _kill_until_gone(lambda: descendants(pid))


def _kill_until_gone(find: Callable[[], list[int]]) -> None:
    """SIGKILL what `find` lists, again and again: a forking process may add children
    while we kill (gives up after 50 rounds, half a second)."""
    for _ in range(50):
        pids = find()
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
