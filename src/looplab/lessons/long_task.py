"""Lesson 12's long task: a model that reads a server log page by page until it finds the
lockout bug, so the history grows turn after turn and compaction has something to do.

The model (`log_reader`) decides from what it can still see: the last `read_log_page`
result names its page, and it asks for the next one. So it keeps going after its history
was compacted, like a real model that reads a summary. A request without tools is a
request for a summary (`summary_of`), which it answers only from what that request sent:
the pages it shows, and the ranges of earlier summaries in it. A summary request that
leaves out the last summary gets a summary that starts where the pages sent start.
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
READ = re.compile(r"Pages (\d+) to (\d+) of \d+ read|第 (\d+) 到 (\d+) 页读完了")


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


def _pages_sent(request: Request) -> set[int]:
    """The pages the request shows, and those earlier summaries in it say were read."""
    text = str(request.messages)
    pages = {int(a or b) for a, b in PAGE.findall(text)}
    for found in READ.findall(text):
        first, last = (int(n) for n in (found[:2] if found[0] else found[2:]))
        pages.update(range(first, last + 1))
    return pages


def log_reader(request: Request) -> StepLike:
    """Read the next page; on the page with the bug, answer; asked to summarise, summarise
    what the request sent."""
    if not request.tools:
        pages = _pages_sent(request)
        if not pages:
            return say(_("Nothing read yet."))
        return say(summary_of(max(pages), min(pages)))
    page = _last_page(request)
    if page >= PAGES:
        return say(_("Found it: bob signed in after 4 failed attempts; the lockout never "
                     "triggers."))
    return call("read_log_page", n=page + 1)


def summary_of(pages: int, first: int = 1) -> str:
    """What the scripted model says when asked to summarise pages `first` to `pages`."""
    return _("Pages {first} to {pages} of {total} read (page {pages} of {total} was the "
             "last): only normal sign-ins, no lockout error yet.").format(
                 first=first, pages=pages, total=PAGES)  # fmt: skip


def log_reader_model() -> FunctionModel:
    return FunctionModel(log_reader)
