"""Starting kernels through the fork server, knowing when one died, and killing all it left.

`ForkServer` runs `forkserver.py` in its own session with a scrubbed environment and
hands out kernels; a reader thread records each kernel's exit as the server reports it.
A kernel leads its own process group (in a PID namespace, its parent does), and carries a
marker in its environment (`running.processes.MARK`) that every program it starts inherits:
`kill()` kills the group, then every process with the marker, even one that left the
group. (On Linux a kernel in its own PID namespace takes everything along when it dies.)
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

import psutil

from ..errors import LooplabError
from ..running.processes import MARK, kill_marked, new_mark
from .jail import Jail
from .kernel_env import scrubbed_env
from .limits import Limits

START_TIMEOUT_S = 120.0
UNKNOWN_EXIT = -1000
"""The exit code of a kernel that died without its fork server seeing how."""


class GraderError(LooplabError, RuntimeError):
    """The grader itself could not do something (start its fork server, a kernel)."""


class Kernels(Protocol):
    """What starts kernels: the fork server, or one bubblewrap per kernel (`JailedKernels`)."""

    jail: Jail | None
    contained: bool

    def wait_ready(self) -> None: ...

    def spawn(self, *, cwd: Path, env: Mapping[str, str], connection_file: Path,
              log: Path) -> Kernel: ...  # fmt: skip

    def exit_code(self, pid: int) -> int | None: ...

    def close(self) -> None: ...


@dataclass
class Kernel:
    """One student's kernel: its process (leader of its own group) and marker."""

    pid: int
    mark: str
    server: Kernels = field(repr=False)

    def exit_code(self) -> int | None:
        """None while it runs; its exit code, or minus the signal that killed it."""
        return self.server.exit_code(self.pid)

    def kill(self) -> None:
        """Kill the kernel, its group and every process carrying its marker."""
        kill_marked(self.mark, group=self.pid)


KERNEL_NICE = 10
"""Students' kernels run at a lower CPU priority than the grader: a cell that spins forever
gets only the CPU that the grader, which must notice its deadline, and other work leave."""


class ForkServer:
    """The process kernels are forked from; see `forkserver.py`."""

    def __init__(self, env: Mapping[str, str] | None = None, *, contain: bool = True,
                 nice: int = KERNEL_NICE, limits: Limits | None = None) -> None:  # fmt: skip
        """`contain=False`: never put kernels in their own PID namespace (for tests of the
        fallback: their own session, killed by group and marker). `nice`: how much lower
        than the grader's the kernels' CPU priority is. `limits`: each kernel's (None: none, for
        the lessons' own kernels in the tests)."""
        self._env = scrubbed_env(env)
        self._contain = contain
        self._nice = nice
        self.limits = limits
        self.jail: Jail | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition()
        self._replies: dict[int, int] = {}
        self._exits: dict[int, int] = {}
        self._next = 0
        self.contained = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._ready: dict[str, Any] = {}
        self._start()

    def _start(self) -> None:
        """Start the server; it gets ready (imports) while the caller does other work."""
        argv = [sys.executable, "-m", "looplab.grading.forkserver"]
        self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=self._env, start_new_session=True,
        )  # fmt: skip
        self._ready = {}
        stdout = self._proc.stdout
        assert stdout is not None
        thread = threading.Thread(target=self._read, args=(stdout, self._ready), daemon=True)
        thread.start()

    def wait_ready(self) -> None:
        """Wait until the server has imported everything; `GraderError` if it cannot."""
        with self._changed:
            self._changed.wait_for(lambda: bool(self._ready) or self._proc_done(), START_TIMEOUT_S)
        if not self._ready:
            self.close()
            raise GraderError("the kernel fork server did not start: is ipykernel installed?")
        self.contained = self._contain and bool(self._ready.get("contained"))

    def _proc_done(self) -> bool:
        return self._proc is None or self._proc.poll() is not None

    def _read(self, stdout: IO[bytes], ready: dict[str, Any]) -> None:
        for line in stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            with self._changed:
                if "ready" in message:
                    ready.update(message)
                elif "exited" in message:
                    self._exits[message["exited"]] = message["code"]
                else:
                    self._replies[message["id"]] = message["pid"]
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def spawn(self, *, cwd: Path, env: Mapping[str, str], connection_file: Path,
              log: Path) -> Kernel:  # fmt: skip
        """A new kernel in `cwd` with exactly `env` (plus a fresh marker)."""
        mark = new_mark()
        with self._lock:
            if self._proc_done():  # killed: start another
                self._start()
            self.wait_ready()
            self._next += 1
            number = self._next
            request = {
                "id": number, "cwd": str(cwd), "env": {**env, MARK: mark},
                "connection_file": str(connection_file), "log": str(log),
                "contain": self._contain, "nice": self._nice,
                **({"limits": self.limits.request()} if self.limits else {}),
            }  # fmt: skip
            proc = self._proc
            assert proc is not None and proc.stdin is not None
            try:
                proc.stdin.write((json.dumps(request) + "\n").encode())
                proc.stdin.flush()
            except OSError as e:
                raise GraderError(f"the kernel fork server stopped: {e}") from None
            with self._changed:
                self._changed.wait_for(
                    lambda: number in self._replies or self._proc_done(), START_TIMEOUT_S
                )
                pid = self._replies.pop(number, None)
        if pid is None:
            raise GraderError("the kernel fork server did not start a kernel")
        return Kernel(pid, mark, self)

    def exit_code(self, pid: int) -> int | None:
        with self._changed:
            if pid in self._exits:
                return self._exits[pid]
        if _running(pid):
            return None
        with self._changed:  # dead: the server reports how within its next round
            self._changed.wait_for(lambda: pid in self._exits, 0.5)
            return self._exits.get(pid, UNKNOWN_EXIT)

    def close(self) -> None:
        """Stop the server (kernels are killed one by one by their graders)."""
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie is not)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:  # it exists, and is not ours to read
        return True
