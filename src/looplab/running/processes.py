"""Processes a tool starts, and killing all of them: children, grandchildren and daemons.

A process group is not enough: a child can call `setsid()` or double-fork and leave the
group. So every process a tool starts carries a marker in its environment
(`LOOPLAB_RUN_MARK=<random token>`), which its descendants inherit, and `kill_marked`
kills every process of this user whose environment carries it (read with psutil, from
`/proc` on Linux; where psutil cannot read other processes' environments, only the
process group is killed). A descendant that wipes its own environment escapes the marker;
the group kill still catches it unless it also left the group.

A forked Python process that never calls `exec` shows the environment it started with
in `/proc`, not a marker set later. So the process that runs an `isolate="process"` tool
becomes a *subreaper* (Linux): a daemon that double-forks away from it is re-parented to
it instead of to init, and `kill_tree` finds and kills everything below it. `kill_tree`
stops that process first (SIGSTOP), so that it cannot start more while they die, or after:
on a busy machine it may still be starting up, not yet in its own group, when the kill
begins. Its caller kills it afterwards.

A kill goes on until no process it must kill is found, however many rounds that takes,
for at most `KILL_DEADLINE_S` seconds; what still runs then is named in a
`ProcessesLeftWarning`.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import psutil

from ..errors import LooplabWarning
from ..i18n import worded
from .deadline import time_left
from .output import ToolError

MARK = "LOOPLAB_RUN_MARK"

KILL_DEADLINE_S = 5.0
"""Longest a kill goes on while it still finds processes to kill (normally it takes a few
milliseconds: SIGKILLed processes end at once, and cannot start more)."""

_LINUX = sys.platform.startswith("linux")
_KTHREADD = 2  # the parent of Linux's kernel threads, which have no environment either


class ProcessesLeftWarning(LooplabWarning, RuntimeWarning):
    """A kill gave up after `KILL_DEADLINE_S` while processes it must kill still ran."""


def new_mark() -> str:
    """A fresh token for one tool call's processes."""
    return secrets.token_hex(8)


def marked_env(mark: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """`env` (default: this process's) with the marker added."""
    out = dict(os.environ if env is None else env)
    out[MARK] = mark
    return out


def marked_pids(mark: str) -> list[int]:
    """Live processes whose environment carries `mark` (none where psutil cannot read it)."""
    return [p.pid for p in _marked(mark)[0]]


def _marked(mark: str) -> tuple[list[psutil.Process], bool]:
    """The live processes carrying `mark`, and whether a process could not be read because
    it is changing programs.

    During `exec` (Linux), between dropping its old memory and setting up the new one, a
    process shows an empty environment and command line: it may be marked, and a kill that
    stopped looking then would miss it. A process that is ending looks the same for a
    moment; kernel threads always do, and are skipped.
    """
    found, changing = [], False
    me = os.getpid()
    for proc in psutil.process_iter():
        if proc.pid == me:
            continue
        try:
            environ = proc.environ()
            if environ.get(MARK) == mark:
                if _alive(proc):
                    found.append(proc)
            elif not environ and _LINUX and not changing and _alive(proc):
                changing = _KTHREADD not in (proc.pid, proc.ppid()) and not proc.cmdline()
        except psutil.Error:  # gone already (NoSuchProcess, ZombieProcess), not ours
            continue
    return found, changing


def kill_marked(mark: str, group: int | None = None) -> None:
    """Kill process group `group` and every process carrying `mark`, until none is left."""
    if group is not None:
        _signal_group(group)
    _kill_until_gone(lambda: _marked(mark))


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
    """Live processes below `pid` in the process tree (zombies are dead already)."""
    return [p.pid for p in _below(pid)[0]]


def _below(pid: int) -> tuple[list[psutil.Process], bool]:
    try:
        tree = psutil.Process(pid).children(recursive=True)
    except psutil.Error:  # gone already, or not ours
        return [], False
    return [p for p in tree if _alive(p)], False


def _alive(proc: psutil.Process) -> bool:
    """Whether `proc` runs (a zombie is dead already, and cannot be killed)."""
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:  # NoSuchProcess (ZombieProcess is one too), AccessDenied
        return False


def kill_tree(pid: int) -> None:
    """Kill every process below `pid`, until none is left; `pid` itself stays, stopped.

    It is stopped first, so that it starts no process while the others die, nor after
    (its caller kills it, or lets it go on with SIGCONT).
    """
    if pid <= 1:
        raise ValueError(f"kill_tree({pid}) would reach every process")
    try:
        psutil.Process(pid).suspend()
    except psutil.Error:  # gone already: the tree below it is still killed
        pass
    _kill_until_gone(lambda: _below(pid))


def _kill_until_gone(find: Callable[[], tuple[list[psutil.Process], bool]]) -> None:
    """SIGKILL what `find` lists, again and again, until it lists nothing and is sure of it:
    a forking process may add children while we kill. Gives up (and warns) only after
    `KILL_DEADLINE_S`."""
    end = time.monotonic() + KILL_DEADLINE_S
    me = os.getpid()
    while True:
        procs, unsure = find()
        if not procs and not unsure:
            return
        if time.monotonic() > end:
            warnings.warn(
                f"processes {sorted(p.pid for p in procs)} still run after "
                f"{KILL_DEADLINE_S:g} s of killing them", ProcessesLeftWarning, stacklevel=3)
            return
        others = []
        for proc in procs:
            try:
                proc.kill()
                if proc.ppid() != me:
                    others.append(proc)
            except psutil.Error:  # gone already, or not ours
                pass
        # A moment for them to end. Not for our own children: waiting for those would
        # reap them behind the back of whoever started them (a Popen would lose its
        # exit code); a SIGKILLed child of ours is dead once a zombie, which `find` skips.
        if others:
            psutil.wait_procs(others, timeout=0.01)
        else:
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
        raise ToolError(worded("timed out after {limit:g} s; the process and its children were "
                               "killed. Try a smaller or different call.", limit=limit))
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, None)
