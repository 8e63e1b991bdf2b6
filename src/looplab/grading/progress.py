"""A progress bar while a class is graded (tqdm's, with a rate and the time left).

On a terminal the bar redraws in place; into a file or a pipe each finished notebook is
one line, so a log shows the same thing.
"""

from __future__ import annotations

import sys
from typing import TextIO

from tqdm import tqdm

from .results import Grade


class Progress:
    """Call `update(grade)` as each notebook finishes, `close()` at the end."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = total
        self.done = 0
        self.stream = sys.stderr if stream is None else stream
        self.live = self.stream.isatty()
        # Not tqdm into a file or a pipe: there too it redraws one line with carriage
        # returns (skipping updates closer than `mininterval`), so a log would hold a run
        # of bars, not which notebook finished and how. So there: a line per notebook.
        # mininterval=0: a notebook takes seconds, so each one may redraw the bar at once.
        self._bar = (
            tqdm(total=total, unit="notebook", file=self.stream, mininterval=0)
            if self.live else None
        )

    def update(self, grade: Grade) -> None:
        self.done += 1
        what = f"{grade.student}: {grade.notebook} {grade.status} {grade.passed}/{grade.total}"
        if self._bar is not None:
            self._bar.set_postfix_str(what, refresh=False)
            self._bar.update(1)
        else:
            self.stream.write(f"{self.done}/{self.total}  {what}\n")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
