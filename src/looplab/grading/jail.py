"""The kernels' sandbox: bubblewrap around the fork server, where it can start.

With `bwrap` (Debian's `bubblewrap`, the sandbox Flatpak uses) the fork server, and every
kernel forked from it, sees the system read-only (the Python environment and looplab
included), no network (only the Unix sockets in its scratch folder), and none of: the
repository with the lessons and their solutions, the submissions, the grader's home, the
system's temp folder. The one writable place is the scratch folder; each kernel then
hides the rest of it (`private_scratch`), so it sees its own copy and nobody else's.
Where `bwrap` is missing or cannot start (macOS, no user namespaces), the grader says so
once and runs the kernels as before: grades stay right either way, since nothing in a
kernel decides them.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

MS_BIND, MS_REC, MS_NOSUID, MS_NODEV = 4096, 0x4000, 2, 4
PROBE_TIMEOUT_S = 20.0
PROBE = (
    "import importlib.util as u, sys; "
    "sys.exit(0 if all(u.find_spec(m) for m in ('ipykernel', 'looplab', 'anthropic')) else 3)"
)
"""Whether the fork server's modules can be found inside the jail, asked before using it."""


@dataclass(frozen=True)
class Jail:
    """What the fork server may see: `scratch` writable, `hidden` not at all."""

    scratch: Path
    hidden: tuple[Path, ...]
    keep: tuple[Path, ...]
    """Read-only places inside a hidden one that Python needs (the package, the venv)."""

    def command(self, argv: Sequence[str]) -> list[str]:
        args = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent"]  # fmt: skip
        for path in self.hidden:
            args += ["--tmpfs", str(path)]
        for path in self.keep:
            if any(path.is_relative_to(h) for h in self.hidden):
                args += ["--ro-bind", str(path), str(path)]
        args += ["--bind", str(self.scratch), str(self.scratch), "--chdir", str(self.scratch)]
        return [*args, "--", *argv]

    def why_not(self) -> str | None:
        """None when bwrap starts here with these settings; else why not, in one line."""
        if shutil.which("bwrap") is None:
            return "bubblewrap (bwrap) is not installed"
        inside = [p for p in self.keep if p.is_relative_to(self.scratch)]
        if inside:  # each kernel covers the scratch folder: Python would vanish with it
            return (f"the scratch folder {self.scratch} holds {inside[0]}, which the kernels "
                    "need: choose another scratch folder")
        try:
            done = subprocess.run(self.command([sys.executable, "-c", PROBE]),
                                  capture_output=True, timeout=PROBE_TIMEOUT_S)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"bubblewrap (bwrap) did not start: {e}"
        if done.returncode == 3:
            return "inside bubblewrap, Python cannot find ipykernel, looplab or anthropic"
        if done.returncode != 0:
            lines = done.stderr.decode(errors="replace").strip().splitlines()
            return "bubblewrap (bwrap) cannot start here" + (f": {lines[-1]}" if lines else "")
        return None


def default_scratch() -> Path:
    """Where the kernels' scratch folders go by default: a folder of the grader's own in
    the system's temp folder, never the temp folder itself, which each kernel covers with an
    empty one (`private_scratch`) and which may hold the Python environment."""
    user = os.getuid() if os.name == "posix" else 0
    folder = Path(tempfile.gettempdir()) / f"looplab-{user}"  # short: sockets live inside
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def jail_for(scratch: Path | None, hidden: Iterable[Path]) -> Jail:
    """A jail whose writable place is `scratch` (default: `default_scratch()`), that
    hides `hidden`, the package's repository, the grader's home and the temp folder."""
    base = Path(scratch or default_scratch()).resolve()
    package = Path(__file__).resolve().parents[1]
    repository = package.parents[1]
    candidates = [*hidden, Path.home(), Path(tempfile.gettempdir())]
    if (repository / "notebooks").is_dir():  # running from a checkout: its lessons
        candidates.append(repository)
    secret = {p.resolve() for p in candidates if p.exists()} - {base}
    # where Python finds its modules (the user's site-packages too), unless that would
    # show a hidden folder again (the repository itself on the path)
    found = [Path(p).resolve() for p in sys.path if p and Path(p).is_dir()]
    keep = tuple(dict.fromkeys(
        [package.parent, Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(),
         *(p for p in found if not any(h.is_relative_to(p) for h in secret))]
    ))  # fmt: skip
    # a place inside another hidden one is hidden with it: leaving it out makes the jails of
    # most gradings equal, so they can share a fork server (`batch.start_server`)
    outer = {p for p in secret if not any(p != h and p.is_relative_to(h) for h in secret)}
    return Jail(base, tuple(sorted(outer, key=lambda p: (len(p.parts), str(p)))), keep)


def private_scratch(own: Path) -> bool:
    """In a kernel that has its own mount namespace: cover the scratch folder with an empty
    one and put back only `own`, this kernel's folder. False when it cannot."""
    libc = ctypes.CDLL(None, use_errno=True)
    base = own.parent
    fd = os.open(own, os.O_PATH | os.O_DIRECTORY)
    try:
        if libc.mount(b"tmpfs", bytes(base), b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755") != 0:
            return False
        os.mkdir(own)
        source = f"/proc/self/fd/{fd}".encode()
        return bool(libc.mount(source, bytes(own), None, MS_BIND | MS_REC, None) == 0)
    finally:
        os.close(fd)
