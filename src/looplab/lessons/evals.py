"""Lesson 16's task set: a few questions about the demo repository, each answered by a
scripted model that varies from trial to trial, like a real model sampled again.

Trial `t` of a task draws its choices from `random.Random` started at a number made of
the task's name and `t`, so every trial is different and every run of the lesson the same.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass

from ..core.limits import Limits
from ..core.loop import run_agent
from ..core.tools import tool
from ..fake import FunctionModel, call, fake_client, say
from ..fake.models import Request
from ..fake.steps import StepLike
from ..i18n import N_, Message, _
from .subagents import final_text


@dataclass(frozen=True)
class EvalTask:
    """A question, the words a right answer contains, a wrong answer the model may give
    instead, and how often the scripted model gets it right. The words are `Message`s
    where they are words, so each is in the language current when it is used."""

    name: str
    question: str
    expected: str
    wrong: str
    p_right: float


TASKS = (
    EvalTask("lockout", Message("Why is bob not locked out?"), Message("off by one"),
             Message("the password check is broken"), 0.9),
    EvalTask("limit", Message("How many failed attempts lock an account?"), "3", "5", 0.8),
    EvalTask("module", Message("Which module has the failing test?"), "login", "session", 0.95),
    EvalTask("fix", Message("What should the lockout check use?"), ">=", "==", 0.6),
)
NOTES = {"lockout": N_("failures > max_attempts (off by one)"), "limit": "MAX_ATTEMPTS = 3",
         "module": N_("tests/test_login.py fails"), "fix": N_("use >= in the lockout check")}


@dataclass(frozen=True)
class Outcome:
    """One trial: did the answer pass the keyword check (it contains the expected words), its
    tokens, the answer."""

    passed: bool
    tokens: int
    answer: str


def trial_model(task: EvalTask, trial: int) -> FunctionModel:
    """The scripted model for one trial: 1 to 3 note lookups, then an answer, right with
    probability `task.p_right`; now and then it loops until the turn limit stops it."""
    rng = random.Random(zlib.crc32(f"{task.name}/{trial}".encode()))
    reads, right, loops = rng.randint(1, 3), rng.random() < task.p_right, rng.random() < 0.05

    def respond(request: Request) -> StepLike:
        done = len(request.messages) // 2
        if loops or done < reads:
            return call("read_notes", topic=task.name)
        return say(_("Answer: {answer}.").format(answer=task.expected if right else task.wrong))

    return FunctionModel(respond)


def run_trial(task: EvalTask, trial: int) -> Outcome:
    """Run one trial through the loop and check its answer exactly."""

    @tool
    def read_notes(topic: str) -> str:
        """Read the team's notes on a topic."""
        return _(NOTES[topic]) if topic in NOTES else _("no notes")

    result = run_agent(fake_client(trial_model(task, trial)), str(task.question),
                       tools=[read_notes], limits=Limits(max_turns=6))
    answer = final_text(result) if result.done else ""
    expected, wrong = str(task.expected), str(task.wrong)  # in the current language
    passed = result.done and expected in answer and wrong not in answer
    return Outcome(passed, sum(result.usage.values()), answer)
