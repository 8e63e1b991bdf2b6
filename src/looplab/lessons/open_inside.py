"""Open a file inside a directory so that no path, symlink or swap leads out of it.

Checking a path first and opening it afterwards has a gap: between the two, a directory
on the way can be replaced by a symlink to anywhere, and the open follows it. So nothing
here lets the operating system follow a link. The root is opened once, then each part of
the path is opened from the directory opened before it (`openat` with `O_NOFOLLOW`). A
symlink is read and followed by this code, step by step, from the directory holding it;
a step above the root, or an absolute target outside it, is refused (`LeadsOutside`).

    root_fd = open_root(root)
    fd = open_inside(root_fd, root, "logs/login.log")

Where the OS has no `openat` (Windows), paths are resolved and checked before the open
instead; that leaves the gap above open.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from ..errors import LooplabError

MAX_LINKS = 40
"""Symlinks followed for one path before it counts as a loop (Linux's own limit)."""

_AT = os.open in os.supports_dir_fd and os.readlink in os.supports_dir_fd
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
# O_NONBLOCK: opening a FIFO must not wait for a writer
_FILE = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC


class LeadsOutside(LooplabError):
    """A symlink on the way points outside the root."""


class LinkLoop(LooplabError):
    """More than `MAX_LINKS` symlinks on the way: a loop, or a chain too long to follow."""


def open_root(root: Path) -> int:
    """A descriptor of `root` itself, not of a symlink put in its place (OSError if so)."""
    return os.open(root, _DIR if _AT else os.O_RDONLY)


def open_inside(root_fd: int, root: Path, path: str) -> int:
    """A read-only descriptor of `path` (relative, "/"-separated) under the root.

    `root` is the root's resolved path, for symlinks with an absolute target. A path that
    names a directory gives the directory's descriptor (check with `os.fstat`). Raises
    `LeadsOutside`, `LinkLoop`, or the `OSError` of the part that failed
    (`FileNotFoundError`, `NotADirectoryError`, ...).
    """
    if not _AT:
        return _open_resolved(root, path)
    dirs = [os.dup(root_fd)]  # the directories from the root down to the current one
    todo = path.split("/")[::-1]  # the parts still to open, next one last
    links = 0
    try:
        while todo:
            name = todo.pop()
            if name in ("", "."):
                continue
            if name == "..":
                if len(dirs) == 1:
                    raise LeadsOutside(path)
                os.close(dirs.pop())
                continue
            last = not any(p not in ("", ".") for p in todo)
            try:
                fd = os.open(name, _FILE if last else _DIR, dir_fd=dirs[-1])
            except OSError:
                target = _readlink(name, dirs[-1])
                if target is None:
                    raise
                links += 1
                if links > MAX_LINKS:
                    raise LinkLoop(path) from None
                todo.extend(_steps(target, root, dirs)[::-1])
                continue
            if last:
                return fd
            dirs.append(fd)
        return os.dup(dirs[-1])  # the path names a directory, e.g. "."
    finally:
        for fd in dirs:
            os.close(fd)


def _readlink(name: str, dir_fd: int) -> str | None:
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError:  # not a symlink (or no longer one): the open's error stands
        return None


def _steps(target: str, root: Path, dirs: list[int]) -> list[str]:
    """The parts to walk for a symlink's `target`, from the directory holding the link.

    An absolute target restarts from the root (`dirs` is cut back to it)."""
    if not target.startswith("/"):
        return target.split("/")
    try:
        inside = PurePosixPath(target).relative_to(root.as_posix())
    except ValueError:
        raise LeadsOutside(target) from None
    while len(dirs) > 1:
        os.close(dirs.pop())
    return list(inside.parts)


def _open_resolved(root: Path, path: str) -> int:
    try:
        target = (root / path).resolve()
    except RuntimeError:  # Python 3.11-3.12 raise this for a symlink loop
        raise LinkLoop(path) from None
    if not target.is_relative_to(root):
        raise LeadsOutside(path)
    return os.open(target, os.O_RDONLY | getattr(os, "O_BINARY", 0))


def list_files(root_fd: int, root: Path, limit: int = 30) -> str:
    """The files under the root (not hidden, no `__pycache__`), sorted, comma-separated;
    after `limit` names, how many more. Symlinked directories are not entered."""
    names = []
    if hasattr(os, "fwalk"):
        for top, dirs, files, top_fd in os.fwalk(".", dir_fd=root_fd):
            dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
            names += [PurePosixPath(top, f).as_posix() for f in files
                      if not f.startswith(".") and _is_file(f, top_fd)]
    else:
        names = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()
                 and "__pycache__" not in p.parts and not p.name.startswith(".")]
    names.sort()
    more = f" (and {len(names) - limit} more)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def _is_file(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISREG(os.stat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False
