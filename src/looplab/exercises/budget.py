"""Lesson 06's checkers: size a token budget from a measured run; the cumulative formula.

    check_token_budget(size_budget)

`size_budget(turns, n_turns) -> tokens`: `turns` are the `Turn` records of a measured run
(`.index`, `.total_input`, `.output_tokens`, …); return a token budget for a run of the
same task that makes `n_turns` requests. The checker measures runs of three tasks, asks
for a budget for a longer run, then makes that run under the budget: it must finish, the
budget must cover every token it used (input and output), and leave at most 25% unused.

`check_token_formula(fn)`: `fn(n_turns, S, delta)`, the input tokens of `n_turns`
requests in total when the first sends `S` and each turn adds `delta`.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.limits import Limits
from ..core.loop import run_agent
from ..core.result import RunResult, Turn
from ..core.tools import tool
from ..fake import FakeClock, ScriptedModel, fake_client, reply, say
from ..fake import call as tool_use
from ..i18n import Message, _
from .common import name_of, raised
from .scorecard import Check, Scorecard

MAX_UNUSED = 0.25
"""A budget may leave at most this share of itself unused by the run it was sized for."""


@dataclass(frozen=True)
class Task:
    """A task whose every request is scripted: call n sends S + (n-1)Δ input tokens."""

    name: Message
    S: int
    delta: int
    outputs: Sequence[int]
    """Output tokens of the replies, in turn; the pattern repeats."""
    measured: int
    target: int

    def run(self, n_turns: int, limits: Limits) -> RunResult:
        """`n_turns` requests (the last one answers); stops earlier if a gate closes."""
        steps = [
            reply(tool_use("read_log_page", n=k) if k < n_turns else say("Found it."),
                  usage={"input_tokens": self.S + (k - 1) * self.delta,
                         "output_tokens": self.outputs[(k - 1) % len(self.outputs)]})
            for k in range(1, n_turns + 1)
        ]  # fmt: skip
        clock = FakeClock()
        return run_agent(fake_client(ScriptedModel(steps), clock=clock), "Find the bug.",
                         tools=[read_log_page], limits=limits, clock=clock)  # fmt: skip


@tool
def read_log_page(n: int) -> str:
    """Read one page of the server log."""
    return f"page {n}: 2025-03-14 09:40:17 WARN login: bob wrong password"


TASKS = (
    Task(Message("the article's numbers"), S=400, delta=300, outputs=(40, 55, 35, 50),
         measured=10, target=20),
    Task(Message("a long system prompt, small turns"), S=5_000, delta=200, outputs=(60, 80),
         measured=5, target=20),
    Task(Message("large turns, wordy replies"), S=1_200, delta=900, outputs=(300, 150, 420),
         measured=4, target=12),
)  # fmt: skip


def check_token_budget(size_budget: Callable[[list[Turn], int], Any]) -> Scorecard:
    """Size a budget from each task's measured run (the last one's S and Δ drawn now);
    make the longer run under it."""
    card = Scorecard(f"check_token_budget({name_of(size_budget)})")
    card.extend(_check_task(size_budget, task) for task in (*TASKS[:-1], _drawn(TASKS[-1])))
    return card


def _drawn(task: Task) -> Task:
    """`task` with its S and Δ drawn now (within a quarter of its own): a budget looked up
    from the checker's numbers does not fit it."""
    return dataclasses.replace(task, S=random.randint(task.S * 3 // 4, task.S * 5 // 4),
                               delta=random.randint(task.delta * 3 // 4, task.delta * 5 // 4))


def _check_task(size_budget: Callable[[list[Turn], int], Any], task: Task) -> Check:
    name = _("{task}: {measured} turns measured, a budget for {target}").format(
        task=task.name, measured=task.measured, target=task.target)
    measured = task.run(task.measured, Limits(max_turns=None, token_budget=None))
    try:
        budget = size_budget(list(measured.turns), task.target)
    except Exception as e:
        return Check(name, False, raised(e))
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0:
        return Check(name, False,
                     _("returned {budget!r}, not a number of tokens above 0").format(budget=budget))
    if not math.isfinite(budget):
        return Check(name, False,
                     _("returned {budget!r}: a gate needs a finite budget").format(budget=budget))
    result = task.run(task.target, Limits(max_turns=None, token_budget=math.ceil(budget)))
    used = sum(result.usage.values())
    if not result.done:
        return Check(name, False, _("the run stopped at turn {turn} of {target} ({result})").format(
            turn=len(result.turns), target=task.target, result=result))
    if budget < used:
        return Check(name, False, _("the budget covers {share:.0%} of the tokens the "
                                    "{target}-turn run used (input and output)").format(
            share=budget / used, target=task.target))
    if budget > used / (1 - MAX_UNUSED):
        unused = 1 - used / budget
        return Check(name, False, _("{unused:.0%} of the budget was left unused; a budget "
                                    "that loose would not stop a runaway run early").format(
            unused=unused))
    return Check(name, True)


def check_token_formula(fn: Callable[[int, float, float], Any]) -> Scorecard:
    """Check `fn(n_turns, S, delta)`: the input tokens of `n_turns` requests in total."""
    cases = [
        (Message("one turn sends S"), (1, 400, 300), 400),
        (Message("no turns send nothing"), (0, 400, 300), 0),
        (Message("the article: 10 turns send 17,500"), (10, 400, 300), 17_500),
        (Message("the article: 20 turns send 65,000"), (20, 400, 300), 65_000),
        (Message("Δ = 0: every turn sends S"), (7, 400, 0), 2_800),
    ]
    card = Scorecard(f"check_token_formula({name_of(fn)})")
    name: str
    for name, args, want in cases:
        try:
            got = fn(*args)
            ok = isinstance(got, (int, float)) and math.isclose(got, want, abs_tol=1e-6)
            why = _("got {got!r} for fn{args}, expected {want:,}").format(
                got=got, args=args, want=want)
        except Exception as e:
            ok, why = False, raised(e)
        card.append(Check(name, ok, "" if ok else why))
    # the sum itself, over a grid and a pair drawn now: catches formulas tuned to the
    # article's numbers, and tables of the checker's own inputs
    name = _("matches adding S + (n-1)Δ turn by turn")
    drawn = (random.randint(1, 9_999), random.randint(0, 999))
    try:
        wrong = next(
            (
                (n, s, d)
                for n in range(1, 31)
                for s, d in ((1000, 0), (250, 75), (3, 7), drawn)
                if not math.isclose(fn(n, s, d), sum(s + (k - 1) * d for k in range(1, n + 1)))
            ),
            None,
        )
        card.append(Check(name, wrong is None, _("differs from the turn-by-turn sum for "
                                                 "fn{args}").format(args=wrong)
                                                if wrong else ""))  # fmt: skip
    except Exception as e:
        card.append(Check(name, False, raised(e)))
    return card
