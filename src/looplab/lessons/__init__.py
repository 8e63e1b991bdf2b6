"""What the lessons use on top of everything else: the demo agent and its sandbox, the
article's loop, the exercise checkers and grading.
"""

from __future__ import annotations

import sys


def short_errors() -> None:
    """In a notebook, show an exception as one line (its type and message), no traceback.

    The lessons cause errors on purpose, such as the API's 400s; the line to read is the
    last one. Does nothing outside IPython.
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        shell.InteractiveTB.set_mode(mode="Minimal")
