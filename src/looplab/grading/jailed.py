"""Kernels each in a bubblewrap of its own (`jail.py`), holding only its scratch folder.

Nothing is forked from a shared process here: each kernel is a Python started by itself in
its sandbox (`forkserver.one`), a second or two of imports, so that no kernel shares a
filesystem, a process tree or a user namespace with another. Where the grader runs as root,
RLIMIT_NPROC does not hold (Linux exempts root's own user), so the grader counts each
sandbox's processes while it waits on it and kills one that starts more than its limit.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import psutil

from ..running.processes import MARK, new_mark
from .jail import Jail
from .kernels import KERNEL_NICE, UNKNOWN_EXIT, GraderError, Kernel
from .limits import OVER_PROCESSES, Limits

ARENAS = {"MALLOC_ARENA_MAX": "2"}
"""glibc's malloc otherwise sets aside 64 MiB of address space for each thread that
allocates, which a memory limit (RLIMIT_AS) counts although none of it is used."""


class JailedKernels:
    """Starts each kernel in a bubblewrap of its own; see the module's doc."""

    def __init__(self, jail: Jail, *, nice: int = KERNEL_NICE,
                 limits: Limits | None = None) -> None:  # fmt: skip
        self.jail: Jail | None = jail
        self._jail = jail
        self.contained = True
        self.limits = limits or Limits()
        self._nice = nice
        self._lock = threading.Lock()
        self._procs: dict[int, subprocess.Popen[bytes]] = {}
        self._over: set[int] = set()

    def wait_ready(self) -> None:
        """Nothing to wait for: each kernel starts on its own."""

    def spawn(self, *, cwd: Path, env: Mapping[str, str], connection_file: Path,
              log: Path) -> Kernel:  # fmt: skip
        """A new kernel in `cwd` with exactly `env` (plus a fresh marker), in a sandbox
        whose one writable place is the folder of `connection_file` (its scratch folder)."""
        mark = new_mark()
        request = {"cwd": str(cwd), "connection_file": str(connection_file), "log": str(log),
                   "nice": self._nice, "limits": self.limits.request()}  # fmt: skip
        argv = [sys.executable, "-m", "looplab.grading.forkserver", "--one", json.dumps(request)]
        try:
            with open(log, "ab") as errors:  # what bubblewrap itself says, if it fails
                proc = subprocess.Popen(
                    self._jail.command(argv, connection_file.parent),
                    stdin=subprocess.DEVNULL, stdout=errors, stderr=errors,
                    env={**env, MARK: mark, **ARENAS}, start_new_session=True,
                )  # fmt: skip
        except OSError as e:
            raise GraderError(f"bubblewrap did not start a kernel: {e}") from None
        with self._lock:
            self._procs[proc.pid] = proc
        return JailedKernel(proc.pid, mark, self)

    def exit_code(self, pid: int) -> int | None:
        with self._lock:
            proc = self._procs.get(pid)
        if pid in self._over:
            return OVER_PROCESSES
        if proc is None:
            return UNKNOWN_EXIT
        code = proc.poll()
        if code is None:
            if len(_tree(pid)) <= self.limits.processes:
                return None
            self._over.add(pid)  # a fork bomb, where its rlimit does not hold (as root)
            self.release(pid)
            return OVER_PROCESSES
        if code > 128 and code - 128 in signal.valid_signals():  # bubblewrap's way to say
            return -(code - 128)  # its command died of a signal
        return code

    def release(self, pid: int) -> None:
        """Reap a killed kernel's bubblewrap."""
        with self._lock:
            proc = self._procs.pop(pid, None)
        if proc is not None:
            try:
                proc.kill()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass

    def close(self) -> None:
        """Kill whatever kernel is left."""
        with self._lock:
            pids = list(self._procs)
        for pid in pids:
            self.release(pid)


@dataclass
class JailedKernel(Kernel):
    def kill(self) -> None:
        """Kill the kernel's sandbox (with its bubblewrap everything inside dies), then
        whatever carries its marker."""
        server = self.server
        if isinstance(server, JailedKernels):
            server.release(self.pid)
        super().kill()


def _tree(pid: int) -> list[psutil.Process]:
    """`pid` and every process below it."""
    try:
        return [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []
