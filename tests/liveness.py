"""Is a process still running? Helpers for the tests that kill processes."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie waiting to be reaped counts as gone)."""
    stat = Path(f"/proc/{pid}/stat")
    if stat.parent.parent.exists() and sys.platform.startswith("linux"):
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (FileNotFoundError, ProcessLookupError):
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_gone(pids: list[int], within_s: float = 10) -> list[int]:
    """The pids still running after up to `within_s` seconds of waiting for them to end."""
    end = time.monotonic() + within_s
    while any(alive(p) for p in pids) and time.monotonic() < end:
        time.sleep(0.05)
    return [p for p in pids if alive(p)]
