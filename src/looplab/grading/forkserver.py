"""A process that imports Jupyter's kernel and looplab once, then forks one kernel per notebook.

Starting a kernel and importing the anthropic SDK in it takes seconds; forking a process
that already did both takes milliseconds, so grading a class costs little more than its
students' code. The grader starts this module with a scrubbed environment (no secret is
ever in it, so none is in a kernel) and talks to it in JSON lines:

    -> {"id": 1, "connection_file": ..., "cwd": ..., "env": {...}, "log": ...,
        "contain": true, "nice": 10, "limits": {...}}
    <- {"id": 1, "pid": 4242}                 the kernel's process (its own session)
    <- {"exited": 4242, "code": -11}          when it ends: exit code, or -signal

`python -m looplab.grading.forkserver --one REQUEST` is one kernel, started by
itself in its own bubblewrap (`jail.py`): the same request, no fork. Run the server with
`python -m looplab.grading.forkserver`; it ends when its input closes,
and (on Linux) is killed when the grader dies, and with it the namespace parents of the
kernels (a kernel without a namespace is left to the grader to kill: a student must not be
able to end other students' kernels by killing this server). Fork is only safe here
because this process never starts a thread.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import random
import select
import sys
import traceback
from typing import Any

from . import hiding
from .kernel_env import die_with_parent, enter_namespace, probe_namespace
from .limits import apply

PRELOAD = (
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "ipykernel.debugger",  # imports debugpy: most of a kernel's start-up
    "pdb",
    "IPython",
    "IPython.core.ultratb",
    "stack_data",  # formats the first traceback, which would make a first interrupt slow
    "looplab",
    "looplab.exercises",
    "looplab.grading.wire_kernel",
    "matplotlib_inline.backend_inline",
    "ipywidgets",
)
"""Imported before forking; a module missing from the environment is skipped."""


def _send(message: dict[str, Any]) -> None:
    os.write(1, (json.dumps(message) + "\n").encode())


def _become_kernel(request: dict[str, Any], contain: bool) -> None:
    """In the forked child: isolate, then run the kernel until it is killed. Never returns."""
    try:
        os.setsid()
        os.nice(request.get("nice", 0))
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(null)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        random.seed()
        jailed = bool(request.get("jailed"))  # in a bubblewrap of its own (`jail.py`)
        own_users = jailed
        if contain and request.get("contain", True) and not jailed:
            die_with_parent()  # this process stays outside, the kernel's parent
            own_users = enter_namespace()
        if "limits" in request:
            apply(request["limits"], own_users)
        hiding.from_env()  # before any student code: the lesson's shipped answers go
        from ipykernel.kernelapp import IPKernelApp

        sys.argv = ["ipykernel"]
        app = IPKernelApp.instance()
        app.initialize(  # type: ignore[no-untyped-call]
            ["-f", request["connection_file"], "--HistoryManager.enabled=False", "--quiet"]
        )
        app.start()  # type: ignore[no-untyped-call]
        os._exit(0)
    except BaseException:  # noqa: B036 - nothing may return into the server's loop
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(70)


def _reap() -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _send({"exited": pid, "code": os.waitstatus_to_exitcode(status)})


def _lines(buffer: bytes) -> tuple[list[bytes], bytes]:
    *lines, rest = buffer.split(b"\n")
    return lines, rest


def serve() -> None:
    die_with_parent()
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
    contain = probe_namespace()
    _send({"ready": True, "contained": contain})
    buffer = b""
    while True:
        readable, _, _ = select.select([0], [], [], 0.05)
        _reap()
        if not readable:
            continue
        chunk = os.read(0, 65536)
        if not chunk:  # the grader is done. Python's last garbage collection would walk
            gc.freeze()  # every object PRELOAD made, most of a second, for no garbage
            return
        lines, buffer = _lines(buffer + chunk)
        for line in lines:
            request = json.loads(line)
            pid = os.fork()
            if pid == 0:
                _become_kernel(request, contain)
            _send({"id": request["id"], "pid": pid})


def one(request: dict[str, Any]) -> None:
    """Become the one kernel of `request`: how a kernel starts in a bubblewrap of its own,
    where there is nothing to fork it from."""
    for name in PRELOAD:  # what the fork server imports first, in the same order
        try:
            importlib.import_module(name)
        except ImportError:
            continue
    _become_kernel({**request, "env": dict(os.environ), "jailed": True}, contain=False)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        one(json.loads(sys.argv[2]))
    serve()
