"""Running code in a kernel with a time limit that holds whatever the code does.

Each request waits for its reply until the cell's time or the notebook's deadline is up,
checking all the while that the kernel is still alive (a segfault or `os._exit` is an
outcome, not an exception). A cell over its time is interrupted; if it does not stop
within `grace_s` (a cell that ignores SIGINT, or is stuck in native code), the outcome
is "timeout" and the caller kills the kernel. Outputs are never subscribed to: the
grader does not read what a notebook prints.
"""

from __future__ import annotations

import queue
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .kernels import UNKNOWN_EXIT, Kernel
from .limits import OVER_PROCESSES

POLL_S = 0.1


@dataclass(frozen=True)
class Outcome:
    kind: str
    """ok, error (the code raised), interrupted (over time, then stopped), timeout (over
    time and would not stop), deadline (the notebook's time is up), crashed, cancelled."""
    detail: str = ""
    """Error: the exception's name. Crashed: how the kernel ended, in words."""
    message: str = ""
    """Error: the exception's message (its first 500 characters)."""
    code: int = 0
    """Crashed: the kernel's exit code, or minus the signal that killed it."""


def describe_exit(code: int) -> str:
    """How a kernel ended, in words."""
    if code == UNKNOWN_EXIT:
        return "the kernel died"
    if code == OVER_PROCESSES:
        return "the kernel was killed for starting too many processes"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        crash = " (a crash in native code)" if name in ("SIGSEGV", "SIGBUS", "SIGABRT") else ""
        return f"the kernel died of {name}{crash}"
    return f"the kernel exited with code {code} (os._exit, quit() or a fatal error)"


class Session:
    """A client of one kernel, bound to the notebook's deadline (a `time.monotonic` value)."""

    def __init__(self, kernel: Kernel, connection_file: Path, *, deadline: float,
                 grace_s: float, stop: threading.Event) -> None:  # fmt: skip
        from jupyter_client.blocking.client import BlockingKernelClient

        self.kernel = kernel
        self.deadline = deadline
        self.grace_s = grace_s
        self.stop = stop
        self.client = BlockingKernelClient()
        self.client.load_connection_file(str(connection_file))
        self.client.start_channels(shell=True, iopub=False, stdin=False, hb=False, control=True)

    def wait_ready(self) -> Outcome:
        """Wait until the kernel answers a kernel_info request on both of the channels the
        grader uses: a first interrupt then arrives at once instead of a second late."""
        reply = self._wait(self.client.kernel_info(), self.deadline)
        if reply is None or reply.kind != "ok":
            return reply or Outcome("deadline")
        message = self.client.session.msg("kernel_info_request", {})
        self.client.control_channel.send(message)
        reply = self._wait(message["header"]["msg_id"], self.deadline, control=True)
        return reply or Outcome("deadline")

    def execute(self, code: str, timeout_s: float, *, silent: bool = False) -> Outcome:
        """Run `code`; interrupt it after `timeout_s`. See `Outcome.kind`."""
        msg_id = self.client.execute(
            code, silent=silent, store_history=not silent, allow_stdin=False,
            stop_on_error=False,
        )  # fmt: skip
        reply = self._wait(msg_id, min(time.monotonic() + timeout_s, self.deadline))
        if reply is not None:
            return reply
        if time.monotonic() >= self.deadline:
            return Outcome("deadline")
        self._interrupt()
        reply = self._wait(msg_id, min(time.monotonic() + self.grace_s, self.deadline))
        if reply is None:
            return Outcome("timeout")
        return reply if reply.kind in ("crashed", "cancelled") else Outcome("interrupted")

    def _interrupt(self) -> None:
        message = self.client.session.msg("interrupt_request", {})
        self.client.control_channel.send(message)

    def _wait(self, msg_id: str, until: float, control: bool = False) -> Outcome | None:
        """The reply to `msg_id` as an outcome; None when `until` came first."""
        receive = self.client.get_control_msg if control else self.client.get_shell_msg
        while True:
            code = self.kernel.exit_code()
            if code is not None:
                return Outcome("crashed", describe_exit(code), code=code)
            if self.stop.is_set():
                return Outcome("cancelled")
            left = until - time.monotonic()
            if left <= 0:
                return None
            try:
                message: dict[str, Any] = receive(timeout=min(POLL_S, left))
            except queue.Empty:
                continue
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue  # the late reply of an earlier request
            content = message.get("content", {})
            if content.get("status", "ok") == "ok":
                return Outcome("ok")
            return Outcome(
                "error", str(content.get("ename", "")), str(content.get("evalue", ""))[:500]
            )

    def close(self) -> None:
        self.client.stop_channels()
