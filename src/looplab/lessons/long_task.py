"""Lesson 12's long task: a model that reads a server log page by page until it finds the
lockout bug, so the history grows turn after turn and compaction has something to do.

The model (`log_reader`) decides from what it can still see: the last `read_log_page`
result names its page, and it asks for the next one. So it keeps going after its history
was compacted, like a real model that reads a summary. A request without tools is a
request for a summary (`summary_of`), which it answers from the pages it was shown.
"""

from __future__ import annotations

import re

from ..core.tools import Tool, tool
from ..fake import FunctionModel, call, say
from ..fake.models import Request
from ..fake.steps import StepLike
from ..i18n import _

PAGES = 12
"""The bug is on the last page."""
LINE = "2025-03-14 09:{minute:02d}:{second:02d} INFO  login: user{n:03d} signed in\n"
BUG = "2025-03-14 10:41:02 ERROR security: bob signed in after 4 failed attempts\n"
PAGE = re.compile(r"page (\d+) of \d+|第 (\d+) 页，共 \d+ 页")


def read_log_page_tool() -> Tool:
    """`read_log_page(n)`: one page (about 1,800 characters) of the login service's log."""

    def read_log_page(n: int) -> str:
        """Read one page of the login service's log; pages are numbered from 1."""
        lines = [LINE.format(minute=(n * 3 + i) % 60, second=(i * 7) % 60, n=i)
                 for i in range(40)]  # fmt: skip
        if n == PAGES:
            lines[-1] = BUG
        return f"page {n} of {PAGES}\n" + "".join(lines)

    return tool(read_log_page)


def _last_page(request: Request) -> int:
    """The highest page number the request's history still shows (0 if none)."""
    pages = [int(a or b) for a, b in PAGE.findall(str(request.messages))]
    return max(pages, default=0)


def log_reader(request: Request) -> StepLike:
    """Read the next page; on the page with the bug, answer; asked to summarise, summarise."""
    if not request.tools:
        return say(summary_of(_last_page(request)))
    page = _last_page(request)
    if page >= PAGES:
        return say(_("Found it: bob signed in after 4 failed attempts; the lockout never "
                     "triggers."))
    return call("read_log_page", n=page + 1)


def summary_of(pages: int) -> str:
    """What the scripted model says when asked to summarise `pages` pages of reading."""
    return _("Pages 1 to {pages} of {total} read (page {pages} of {total} was the last): "
             "only normal sign-ins, no lockout error yet.").format(pages=pages, total=PAGES)


def log_reader_model() -> FunctionModel:
    return FunctionModel(log_reader)
