"""Lesson 22's checker: a sandboxed run of model-written code, as the tool result the model
reads.

    check_code_result(code_result)

`code_result(run) -> (text, is_error)`: `run` is a `CodeRun` (`exit_code`: `None` when the
time limit killed it, negative when a signal did; `stdout`; `stderr`; `limit`: the limit
that stopped it, or `None`). Return the text the model reads and whether the result is an
error: a run is an error when it exited with a code other than 0 or a limit stopped it;
the text then says the exit code or names the limit (`run.limit`), and keeps the end of
`stderr` (where the exception is). A clean run's text is what it printed; warnings on
`stderr` with exit code 0 do not make it an error.

The checker runs the loop through the fake API with your function behind `run_python`,
and reads the `tool_result` the next request carries: what the model would read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.loop import run_agent
from ..core.tools import ToolError, tool
from ..fake import FunctionModel, call, fake_client, say
from ..fake.models import Request
from ..fake.steps import StepLike
from ..i18n import Message, _
from ..lessons.code_sandbox import CodeRun
from .common import name_of, raised, text_of
from .scorecard import Check, Scorecard, verdict

DENIED = "PermissionError: [Errno 13] Permission denied: '/etc/shadow'"
TRACEBACK = ('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
             f"{DENIED}\n")
# (name, the run, is_error wanted, words the text must hold)
CASES: list[tuple[Message, CodeRun, bool, tuple[str, ...]]] = [
    (Message("a clean run: what it printed, not an error"), CodeRun(0, "4\n", ""), False,
     ("4",)),
    (Message("an exception: is_error, with the exception's line from stderr"),
     CodeRun(1, "", TRACEBACK), True, (DENIED,)),
    (Message("stopped by the time limit: is_error, naming the limit"),
     CodeRun(None, "started\n", "", "time"), True, ("time",)),
    (Message("killed by its CPU limit (a signal): is_error, naming the limit"),
     CodeRun(-24, "", "", "cpu"), True, ("cpu",)),
    (Message("a warning on stderr with exit code 0 is not an error"),
     CodeRun(0, "ok\n", "DeprecationWarning: old\n"), False, ("ok",)),
]  # fmt: skip


def _as_the_model_reads_it(fn: Callable[[Any], Any], run: CodeRun) -> dict[str, Any]:
    """`fn` behind `run_python` in a loop on the fake API: the tool_result sent back."""
    seen: list[dict[str, Any]] = []

    @tool
    def run_python(code: str) -> str:
        """Run Python code."""
        got = fn(run)
        if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[1], bool)):
            raise TypeError(f"return (text, is_error), got {got!r}"[:200])
        if got[1]:
            raise ToolError(str(got[0]))
        return str(got[0])

    def respond(request: Request) -> StepLike:
        content = request.messages[-1]["content"]
        if isinstance(content, list):
            seen.extend(b for b in content if b.get("type") == "tool_result")
            return say("done")
        return call("run_python", code="print(2 + 2)")

    run_agent(fake_client(FunctionModel(respond)), "Run it.", tools=[run_python])
    return seen[0]


def check_code_result(fn: Callable[[Any], Any]) -> Scorecard:
    card = Scorecard(f"check_code_result({name_of(fn)})")
    for name, run, error, words in CASES:
        try:
            fn(run)  # your function's own exception, not the loop's answer to it
            block = _as_the_model_reads_it(fn, run)
        except Exception as e:
            card.append(Check(name, False, raised(e)))
            continue
        text = str(text_of(block.get("content", "")))
        is_error = bool(block.get("is_error", False))
        missing = [w for w in words if w not in text]
        card.append(verdict(name, is_error == error and not missing, _(
            "the model read is_error={got} (want {want}), text {text!r}").format(
            got=is_error, want=error, text=text[:120])))
    return card
