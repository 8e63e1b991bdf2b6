"""nbval's kernels forked from one process per pytest worker that has imported them already.

Each lesson under nbval needs a fresh kernel, and a fresh `python -m ipykernel_launcher`
spends about two seconds importing ipykernel, IPython, the anthropic SDK, matplotlib and
ipywidgets before the lesson's first line runs. The grader avoids that cost with its fork
server (`looplab.grading.forkserver`), which imports them once and forks a kernel per
notebook; here nbval's kernels come from the same server, so `make pytest` runs the
lessons with the code the grader uses. A forked kernel is an ordinary ipykernel in the
notebook's folder with the worker's environment: nbval talks to it, interrupts it and
shuts it down through jupyter_client as it would any kernel.

jupyter_client chooses how to start a kernel by the kernel spec's `kernel_provisioner`;
`use_forked_kernels()` gives nbval's current-environment spec a provisioner that asks the
fork server instead of starting a process. One lesson run alone (`pytest --nbval
notebooks/NN_*.ipynb`) does not load this file and starts its kernel the usual way.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from jupyter_client.provisioning import KernelProvisionerFactory, LocalProvisioner

from looplab.grading.kernels import ForkServer, Kernel

NAME = "looplab-forked"
_server: ForkServer | None = None


def server() -> ForkServer:
    """This worker's fork server. It imports while pytest collects; its kernels stay out of
    PID namespaces (they run the lessons, not students' code), each in its own session."""
    global _server
    if _server is None:
        _server = ForkServer(contain=False, nice=0)  # the lessons' own code, not a student's
    return _server


def close() -> None:
    global _server
    if _server is not None:
        _server.close()
        _server = None


class ForkedProcess:
    """The part of `subprocess.Popen` jupyter_client's local provisioner uses."""

    stdin = stdout = stderr = None

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.pid = kernel.pid

    def poll(self) -> int | None:
        return self.kernel.exit_code()

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if end is not None and time.monotonic() > end:
                raise TimeoutError(f"kernel {self.pid} still running after {timeout} s")
            time.sleep(0.02)
        return code

    def send_signal(self, signum: int) -> None:
        try:
            os.killpg(self.pid, signum)
        except ProcessLookupError:
            pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.kernel.kill()


class ForkedProvisioner(LocalProvisioner):  # type: ignore[misc]
    """A local kernel whose process comes from the fork server (the connection file, ports
    and cleanup stay jupyter_client's own)."""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> Any:
        connection_file = Path(cmd[cmd.index("-f") + 1])
        cwd = Path(kwargs.get("cwd") or Path.cwd())
        kernel = server().spawn(cwd=cwd, env=kwargs.get("env") or dict(os.environ),
                                connection_file=connection_file, log=Path(os.devnull))
        self.process = ForkedProcess(kernel)
        self.pid = self.pgid = kernel.pid  # the kernel leads its own session and group
        self.cwd = cwd
        return self.connection_info


def use_forked_kernels() -> None:
    """Make nbval's `--nbval-current-env` kernels forked ones (see the module's text)."""
    import nbval.kernel

    factory = KernelProvisionerFactory.instance()
    if NAME in factory.provisioners:  # already in use in this process
        return
    factory.provisioners[NAME] = SimpleNamespace(name=NAME, load=lambda: ForkedProvisioner)
    plain = nbval.kernel.NbvalKernelspecManager

    class Forked(plain):  # type: ignore[misc, valid-type]
        def get_kernel_spec(self, kernel_name: str) -> Any:
            spec = super().get_kernel_spec(kernel_name)
            if kernel_name == nbval.kernel.CURRENT_ENV_KERNEL_NAME:
                spec.metadata = {**spec.metadata, "kernel_provisioner": {"provisioner_name": NAME}}
            return spec

    nbval.kernel.NbvalKernelspecManager = Forked
    server()
