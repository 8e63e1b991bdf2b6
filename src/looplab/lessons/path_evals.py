"""Lesson 21's trials: the demo task run many times by a scripted model that takes a
different path each time, each run traced (`looplab.lessons.traces`).

On the way to its answer the model may name a test module that does not exist, or read
`src/login.py` (the demo repository keeps `login.py` at its top). Some trials recover from
such an error, some repeat the same wrong call until the repeat gate stops them, and some
read the right file and still answer wrong. Trial `t` draws its path from `random.Random`
started at a number made of `t`, so every trial differs and every run of the lesson is the
same; requests and tools take time on a `FakeClock`, never real time.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.semconv._incubating.attributes.gen_ai_attributes import GEN_AI_TOOL_NAME

from ..core.limits import Limits
from ..core.tools import ToolError, tool
from ..fake import FakeClock, FunctionModel, call, fake_client, reply, say
from ..fake.models import Request
from ..fake.steps import StepLike
from ..i18n import _
from .demo import demo_root, recorded_pytest, task
from .subagents import final_text
from .traces import CHAT, EXECUTE_TOOL, FinishedSpan, failed, operation, traced_run

EXPECTED = ">="
"""What a right answer says: the lockout check must use `>=`, not `>`."""
LIMITS = Limits(max_turns=8)
TOOL_SECONDS = {"run_tests": 2.0, "read_file": 0.1}
"""How long each tool takes on the trial's clock."""


@dataclass(frozen=True)
class Trial:
    """One traced run: did its answer pass, and its spans."""

    passed: bool
    spans: list[FinishedSpan]
    answer: str


def plan(trial: int) -> list[StepLike]:
    """The model's replies in trial `trial`, in order (the last repeats if it is asked
    again: a model stuck on a call)."""
    rng = random.Random(zlib.crc32(f"path/{trial}".encode()))
    typo, wrong_path = rng.random() < 0.3, rng.random() < 0.5
    stuck, right = rng.random() < 0.5, rng.random() < 0.9
    steps = [call("run_tests", module="logins")] if typo else []
    steps.append(call("run_tests", module="login"))
    if wrong_path:
        steps.append(call("read_file", path="src/login.py"))
        if stuck:
            return [reply(s, delay_s=_delay(rng)) for s in steps]
    steps.append(call("read_file", path="login.py"))
    answer = (_("Answer: `is_locked` uses `>`; it should use `{fix}`.").format(fix=EXPECTED)
              if right else _("Answer: the password comparison is wrong."))
    steps.append(say(answer))
    return [reply(s, delay_s=_delay(rng)) for s in steps]


def _delay(rng: random.Random) -> float:
    return round(rng.uniform(0.5, 1.5), 1)


def run_trial(trial: int) -> Trial:
    """Trial `trial` through the loop, traced; it passes when it finishes with an answer
    that names the fix."""
    clock, steps = FakeClock(), plan(trial)

    @tool
    def run_tests(module: str) -> str:
        """Run the tests of one module of the repository."""
        clock.advance(TOOL_SECONDS["run_tests"])
        found = recorded_pytest(demo_root(), module)
        if found is None:
            raise ToolError(_("no tests for module {module!r}").format(module=module))
        return found

    @tool
    def read_file(path: str) -> str:
        """Read a file of the repository."""
        clock.advance(TOOL_SECONDS["read_file"])
        if path != "login.py":
            raise ToolError(_("no such file: {path}").format(path=path))
        return (demo_root() / "login.py").read_text(encoding="utf-8")

    def respond(request: Request) -> StepLike:
        return steps[min(len(request.messages) // 2, len(steps) - 1)]

    traced = traced_run(fake_client(FunctionModel(respond), clock=clock), str(task()),
                        tools=[run_tests, read_file], limits=LIMITS, clock=clock)
    answer = final_text(traced.result) if traced.result.done else ""
    return Trial(traced.result.done and EXPECTED in answer, traced.spans, answer)




def went_wrong(spans: list[ReadableSpan]) -> ReadableSpan | None:
    """The step where a failed trial went wrong: its first tool call that failed and was
    never followed by a call of the same tool that worked; else, when every error was
    recovered from (or there was none), its last request, whose answer was wrong. `None`
    for a trace with no request."""
    tools = [s for s in spans if operation(s) == EXECUTE_TOOL]
    for i, span in enumerate(tools):
        name = (span.attributes or {}).get(GEN_AI_TOOL_NAME)
        if failed(span) and not any((later.attributes or {}).get(GEN_AI_TOOL_NAME) == name
                                    and not failed(later) for later in tools[i + 1:]):
            return span
    requests = [s for s in spans if operation(s) == CHAT]
    return requests[-1] if requests else None
