"""The kernels' sandbox: one bubblewrap per kernel, holding only that kernel's scratch folder.

With `bwrap` (Debian's `bubblewrap`, the sandbox Flatpak uses) each kernel starts in a
filesystem of its own, built from nothing: read-only the system's programs and libraries
(`/usr`, `/lib`, ...), the few files of `/etc` Python reads, the Python environment and
looplab (`keep`); writable only its own scratch folder (its copy of the student's folder,
its home and temp folder, its sockets). Nothing else is there to find, so there is nothing
to uncover: not the other kernels' scratch folders, not the repository with the lessons and
their solutions, not the submissions, the grader's home or the system's temp folder. It
has its own PID namespace and `/proc` (it sees its own processes only, not the grader's
command line), no network (only the Unix sockets in its scratch folder), and (bubblewrap
0.8 and later) no way to make a user namespace of its own (`--disable-userns`), so it
holds no capability with which to change its mounts. Where `bwrap` is missing or cannot
start (macOS, no user namespaces), `why_not` says why; the grader then refuses to grade a
class unless told `--unsandboxed` (`batch.check_sandbox`).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

PROBE_TIMEOUT_S = 20.0
PROBE = (
    "import importlib.util as u, sys; "
    "sys.exit(0 if all(u.find_spec(m) for m in ('ipykernel', 'looplab', 'anthropic')) else 3)"
)
"""Whether the kernel's modules can be found inside the jail, asked before using it."""
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""The system's programs and libraries (on most systems today the last ones are links)."""
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "nsswitch.conf",
       "passwd", "group", "hosts", "mime.types", "ssl", "ca-certificates", "fonts",
       "alternatives", "matplotlibrc")  # fmt: skip
"""What of `/etc` a kernel may read: no more than Python, its SSL and matplotlib read."""


@dataclass(frozen=True)
class Jail:
    """Where scratch folders are made (`scratch`), and what a kernel may read (`keep`)."""

    scratch: Path
    keep: tuple[Path, ...]
    """Read-only places Python needs (the package, the venv, the interpreter)."""

    def command(self, argv: Sequence[str], own: Path) -> list[str]:
        """`argv` in a sandbox of its own, with `own` (a scratch folder) its one writable place."""
        args = ["bwrap", "--unshare-user", *_no_userns(), "--unshare-pid", "--unshare-net",
                "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--new-session",
                "--die-with-parent", "--dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/tmp"]  # fmt: skip
        for place in SYSTEM:
            if os.path.islink(place):
                args += ["--symlink", os.readlink(place), place]
            elif os.path.isdir(place):
                args += ["--ro-bind", place, place]
        for name in ETC:
            if os.path.exists(f"/etc/{name}"):
                args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
        for path in self.keep:
            args += ["--ro-bind", str(path), str(path)]
        args += ["--bind", str(own), str(own), "--chdir", str(own)]
        return [*args, "--", *argv]

    def why_not(self) -> str | None:
        """None when bwrap starts here with these settings; else why not, in one line."""
        if shutil.which("bwrap") is None:
            return "bubblewrap (bwrap) is not installed"
        if self not in _probed:  # a second or so: once for each sandbox in a process
            _probed[self] = self._probe()
        return _probed[self]

    def _probe(self) -> str | None:
        try:
            with tempfile.TemporaryDirectory(prefix="probe-", dir=self.scratch) as own:
                done = subprocess.run(self.command([sys.executable, "-c", PROBE], Path(own)),
                                      capture_output=True, timeout=PROBE_TIMEOUT_S)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"bubblewrap (bwrap) did not start: {e}"
        if done.returncode == 3:
            return "inside bubblewrap, Python cannot find ipykernel, looplab or anthropic"
        if done.returncode != 0:
            lines = done.stderr.decode(errors="replace").strip().splitlines()
            return "bubblewrap (bwrap) cannot start here" + (f": {lines[-1]}" if lines else "")
        return None


@functools.cache
def _no_userns() -> tuple[str, ...]:
    """`--disable-userns` where this bubblewrap has it (0.8 and later). Without it a kernel
    can make a user namespace of its own, but still no mount to undo: the mounts it was
    given are locked there, and nothing lies under them."""
    try:
        done = subprocess.run(["bwrap", "--help"], capture_output=True, timeout=PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return ("--disable-userns",) if b"--disable-userns" in done.stdout + done.stderr else ()


_probed: dict[Jail, str | None] = {}


def default_scratch() -> Path:
    """Where the kernels' scratch folders go by default: a folder of the grader's own in
    the system's temp folder."""
    user = os.getuid() if os.name == "posix" else 0
    folder = Path(tempfile.gettempdir()) / f"looplab-{user}"  # short: sockets live inside
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def jail_for(scratch: Path | None, hidden: Iterable[Path]) -> Jail:
    """A jail whose scratch folders are made in `scratch` (default: `default_scratch()`).
    What Python needs is kept, unless it holds something a kernel must not see: a folder
    of `hidden` (the submissions, the lessons), the scratch folders, the grader's home,
    the temp folder, or the package's repository (its lessons and their solutions)."""
    base = Path(scratch or default_scratch()).resolve()
    package = Path(__file__).resolve().parents[1]
    repository = package.parents[1]
    candidates = [*hidden, base, Path.home(), Path(tempfile.gettempdir())]
    if (repository / "notebooks").is_dir():  # running from a checkout: its lessons
        candidates.append(repository)
    secret = {p.resolve() for p in candidates if p.exists()}
    found = [Path(p).resolve() for p in sys.path if p and Path(p).is_dir()]
    wanted = [package.parent, Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(),
              *found]  # fmt: skip
    keep = [p for p in dict.fromkeys(wanted)
            if not any(h.is_relative_to(p) for h in secret)
            and not p.is_relative_to(base)]  # fmt: skip
    # a place inside another kept one is bound with it
    outer = [p for p in keep if not any(p != k and p.is_relative_to(k) for k in keep)]
    return Jail(base, tuple(sorted(outer, key=str)))
