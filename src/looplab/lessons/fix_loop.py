"""Lesson 22's agent: a scripted model that fixes the demo repository by writing Python.

Each turn it writes code for `run_python` (`looplab.lessons.code_sandbox`): run the tests;
patch `login.py` and run them again; and, when the tests still fail (the tool result has
`is_error`), patch again. It reads the last result to decide, as a real model would: it
answers only when a run of the tests came back without an error. The first patch has a
typo (`max_attempt`): the tests say so, and the next patch fixes it.
"""

from __future__ import annotations

from ..fake import FunctionModel, call, say
from ..fake.models import Request
from ..fake.steps import StepLike
from ..i18n import _

RUN_TESTS = """import pytest
raise SystemExit(pytest.main(["-q", "-p", "no:cacheprovider"]))"""
PATCHES = (
    # the first try: the comparison is right, the attribute's name is not
    ("> self.max_attempts\n", ">= self.max_attempt\n"),
    ("self.max_attempt\n", "self.max_attempts\n"),
)


def patch(old: str, new: str) -> str:
    """Code that replaces `old` with `new` in login.py, then runs the tests."""
    return (f"from pathlib import Path\np = Path('login.py')\n"
            f"p.write_text(p.read_text().replace({old!r}, {new!r}))\n{RUN_TESTS}")


def _last_result(request: Request) -> dict[str, object] | None:
    content = request.messages[-1]["content"] if request.messages else None
    if isinstance(content, list):
        found = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        return found[-1] if found else None
    return None


def fixer() -> FunctionModel:
    """The scripted model: tests, then a patch after each failed run, then the answer."""

    def respond(request: Request) -> StepLike:
        last = _last_result(request)
        if last is None:
            return call("run_python", code=RUN_TESTS)
        if not last.get("is_error"):
            return say(_("The tests pass: `is_locked` now uses `>=`."))
        tried = sum(1 for m in request.messages if m["role"] == "assistant") - 1
        if tried >= len(PATCHES):
            return say(_("I could not make the tests pass."))
        return call("run_python", code=patch(*PATCHES[tried]))

    return FunctionModel(respond)
