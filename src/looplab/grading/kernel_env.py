"""What a student's kernel may see: a scrubbed environment, and (on Linux) its own
process-ID namespace.

The environment keeps only what Python needs to run (`ALLOWED`): no API key, token or
credential of the grader's reaches student code. In its own PID namespace the kernel is
process 1 of a private process tree: it cannot see or signal the grader or another
student's kernel (`kill(-1)` included), and when it dies the system kills everything it
started, `setsid` daemons included. Entering one needs unprivileged user namespaces
(most Linux systems); where that is refused, the kernel still runs in its own session,
and the grader kills its process group and every process carrying its marker.
"""

from __future__ import annotations

import ctypes
import os
import signal
from collections.abc import Mapping

ALLOWED = (
    "PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TERM",
    "PYTHONPATH", "PYTHONIOENCODING", "PYTHONUTF8", "VIRTUAL_ENV", "CONDA_PREFIX",
    "SYSTEMROOT",
)  # fmt: skip
"""Variables passed from the grader to a kernel; everything else is dropped."""

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
PR_SET_PDEATHSIG = 1


def scrubbed_env(source: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """The variables of `source` (default: this process's) in `ALLOWED`, plus `extra`."""
    source = os.environ if source is None else source
    env = {k: v for k, v in source.items() if k in ALLOWED}
    env.update(extra)
    return env


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def die_with_parent() -> None:
    """Ask Linux to kill this process when the process that started it dies (so nothing
    of the grader's outlives it); elsewhere, nothing."""
    if not os.path.exists("/proc/self/status"):
        return
    parent = os.getppid()
    try:
        _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it died before the request
        os._exit(1)


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def enter_namespace() -> bool:
    """Move this (single-threaded, just forked) process into new user, mount and PID
    namespaces and fork: the child returns True as process 1 of the new namespace; this
    process stays outside, waits for it and exits the way it did. False, with nothing
    changed, where namespaces are not available."""
    if not hasattr(os, "fork") or not os.path.exists("/proc/self/uid_map"):
        return False
    uid, gid = os.getuid(), os.getgid()
    try:
        libc = _libc()
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) != 0:
            return False
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    except (OSError, AttributeError):
        return False
    child = os.fork()
    if child:
        _exit_like(child)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    # its own /proc, so the processes outside are not even listed
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) == 0:
        libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    return True


def _exit_like(child: int) -> None:
    """Wait for `child`, then end this process with its exit code or signal."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(70)
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def probe_namespace() -> bool:
    """Whether `enter_namespace` works here: tried once in a throwaway child."""
    if not hasattr(os, "fork"):
        return False
    pid = os.fork()
    if pid == 0:
        try:
            ok = enter_namespace()
            os._exit(0 if ok and os.getpid() == 1 else 1)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0
