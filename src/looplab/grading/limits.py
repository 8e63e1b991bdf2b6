"""What one student's kernel may use: memory, file size, processes, open files, CPU time.

Each limit is an rlimit the kernel sets on itself before it runs anything of the student's
(`apply`, in the kernel's process: every process it starts inherits it), so a notebook
that allocates 3 GiB, writes a 2 GiB file or forks without end is stopped in its own
kernel and nowhere else. In bubblewrap each kernel has its own user namespace, where the
process count is its own (Linux counts processes per user namespace since 5.14): another
student's processes do not count against it. A cell stopped by a limit makes the notebook's
status `error`, with the limit named (`hit`); the rest of the class is not touched.
"""

from __future__ import annotations

import errno
import signal
from dataclasses import dataclass
from typing import Any

MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Per kernel. The defaults leave room for any lesson's solution several times over."""

    memory_mib: int = 2048
    """Address space (RLIMIT_AS): a kernel's own start takes about 400 MiB of it."""
    file_mib: int = 256
    """The largest file it may write (RLIMIT_FSIZE)."""
    processes: int = 256
    """Processes and threads of its own (RLIMIT_NPROC; a kernel starts about 10 threads)."""
    open_files: int = 512
    """Open file descriptors (RLIMIT_NOFILE), sockets included."""
    cpu_s: int = 600
    """CPU seconds in all (RLIMIT_CPU); then the kernel is killed."""

    def request(self) -> dict[str, int]:
        return {"memory_mib": self.memory_mib, "file_mib": self.file_mib,
                "processes": self.processes, "open_files": self.open_files,
                "cpu_s": self.cpu_s}  # fmt: skip

    def named(self, what: str) -> str:
        """One limit in words, with the option that sets it."""
        return {
            "memory": f"its memory limit ({self.memory_mib} MiB, --memory)",
            "file": f"its file size limit ({self.file_mib} MiB, --file-size)",
            "processes": f"its process limit ({self.processes}, --processes)",
            "open_files": f"its open files limit ({self.open_files}, --open-files)",
            "cpu": f"its CPU time limit ({self.cpu_s} s, --cpu-time)",
        }[what]


def apply(request: dict[str, Any], own_users: bool) -> None:
    """Set the limits of `request` (`Limits.request()`) on this process. `own_users`: this
    process has a user namespace of its own, so a process limit counts its processes only
    (outside one it would count every process of the user, the grader's included)."""
    import resource

    def cap(which: int, value: int) -> None:
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    cap(resource.RLIMIT_AS, int(request["memory_mib"]) * MIB)
    cap(resource.RLIMIT_FSIZE, int(request["file_mib"]) * MIB)
    cap(resource.RLIMIT_NOFILE, int(request["open_files"]))
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    cpu = int(request["cpu_s"])
    soft = min(cpu, hard) if hard != resource.RLIM_INFINITY else cpu
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard if hard != resource.RLIM_INFINITY
                                             else cpu + 5))  # fmt: skip
    if own_users:
        cap(resource.RLIMIT_NPROC, int(request["processes"]))


ERRNOS = {errno.EFBIG: "file", errno.EMFILE: "open_files", errno.ENFILE: "open_files",
          errno.EAGAIN: "processes"}  # fmt: skip


def hit(ename: str, evalue: str) -> str | None:
    """Which limit a cell's exception shows it ran into (`Limits.named`), if any."""
    if ename == "MemoryError":
        return "memory"
    if ename == "RuntimeError" and "can't start new thread" in evalue:
        return "processes"
    if ename in ("OSError", "BlockingIOError", "PermissionError"):
        for number, what in ERRNOS.items():
            if evalue.startswith(f"[Errno {number}]"):
                return what
    return None


OVER_PROCESSES = -1001
"""The exit code of a kernel the grader killed for running more processes than its limit
(`kernels.JailedKernels`): where the grader runs as root, RLIMIT_NPROC does not hold."""


def killed_by(code: int) -> str | None:
    """Which limit killed a kernel that ended with `code` (minus a signal), if one did."""
    if code == OVER_PROCESSES:
        return "processes"
    if code == -signal.SIGXCPU:
        return "cpu"
    if code == -signal.SIGXFSZ:
        return "file"
    return None
