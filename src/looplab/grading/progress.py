"""A progress bar while a class is graded: tqdm's when it is installed, else a small one.

On a terminal the bar redraws in place; into a file or a pipe each finished notebook is
one line, so a log shows the same thing.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any, TextIO

from .results import Grade

WIDTH = 24


class Progress:
    """Call `update(grade)` as each notebook finishes, `close()` at the end."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = total
        self.done = 0
        self.stream = sys.stderr if stream is None else stream
        self.live = self.stream.isatty()
        self._bar: Any = None
        if self.live:
            try:  # optional: a nicer bar with a rate and time left
                tqdm = import_module("tqdm").tqdm
                self._bar = tqdm(total=total, unit="notebook", file=self.stream)
            except ImportError:
                pass

    def update(self, grade: Grade) -> None:
        self.done += 1
        what = f"{grade.student}: {grade.notebook} {grade.status} {grade.passed}/{grade.total}"
        if self._bar is not None:
            self._bar.set_postfix_str(what, refresh=False)
            self._bar.update(1)
        elif self.live:
            filled = WIDTH * self.done // max(self.total, 1)
            bar = "#" * filled + "." * (WIDTH - filled)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total}  {what[:60]:<60}")
            self.stream.flush()
        else:
            self.stream.write(f"{self.done}/{self.total}  {what}\n")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.live:
            self.stream.write("\n")
            self.stream.flush()
