"""Lesson 18's checker: plan, then act, and plan again when a step fails.

    check_plan_then_act(plan_then_act)

`plan_then_act(client, task, tools, max_replans=2) -> (status, done)`: ask for a plan in a
request whose `tool_choice` forces `make_plan` (`looplab.lessons.planning`), run each step
with `run_agent` on a history of its own (the step's text in its first message), and when
a step fails (`step_failed`) ask for a new plan, with the failed step and its error in
that request, and run the new plan instead of what was left of the old one; after
`max_replans` new plans, a failed step ends it. `status` is `"done"` or `"failed"`; `done`
lists `(step, answer)` of the steps done, in order.

One scripted model answers both roles through one client: a request offering `make_plan`
is the planner's, any other a step's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..fake import FunctionModel, Request, api_error, call, fake_client, say
from ..i18n import Message, _
from ..lessons.planning import PLAN_CHOICE, PLAN_TOOL
from .common import World, name_of, raised
from .scorecard import Check, Scorecard, verdict

TASK = "Find out how many failed attempts lock an account."
TESTS, BAD, OLD, FIX, NAME = ("Run the login tests.", "Read docs/lockout.md.",
                              "Read src/login.py.", "Read src/config.py.",
                              "Name the lockout limit.")  # fmt: skip
STEPS: dict[str, tuple[Any, str]] = {  # a step's one tool call (or None), then its answer
    TESTS: (call("run_tests", module="login"), "1 failed, 2 passed"),
    BAD: (call("read_file", path="docs/lockout.md"), "There is no docs/lockout.md."),
    OLD: (call("read_file", path="src/login.py"), "The counter never resets."),
    FIX: (call("read_file", path="src/config.py"), "MAX_ATTEMPTS = 5"),
    NAME: (None, "The limit is 5 attempts."),
}
ERROR = "no such file"  # what read_file says about docs/lockout.md
MAX_PLANS = 8  # plans a scenario hands out before it takes the harness for endless

NAMES = (
    Message("the plan comes from a request that forces make_plan with tool_choice"),
    Message("each step runs in the loop on a history of its own"),
    Message("the steps' answers come back in order, with \"done\""),
    Message("a failed step asks for a new plan with its error; the old plan's rest never runs"),
    Message("a step that keeps failing ends it after max_replans new plans: \"failed\""),
)


class Scenario:
    """A planner that hands out `plans` in turn (the last one again and again), and steps
    that do what `STEPS` says."""

    def __init__(self, plans: list[list[str]], replan_needs_error: bool = False) -> None:
        self.plans, self.replan_needs_error = plans, replan_needs_error
        self.planned = 0
        self.model = FunctionModel(self.respond)
        self.world = World([])
        self.client = fake_client(self.model, max_retries=0)

    def respond(self, request: Request) -> Any:
        if "make_plan" in request.tool_names:
            if self.planned == MAX_PLANS:  # a harness that never stops asking
                return api_error(429, "rate_limit_error", _(
                    "asked for a plan {n} times: the replans have no limit").format(
                        n=MAX_PLANS + 1))
            plans = self.plans
            if self.replan_needs_error and ERROR not in _text(request.messages):
                plans = plans[:1]  # a planner not told what failed plans the same again
            self.planned += 1
            return call("make_plan", steps=plans[min(self.planned, len(plans)) - 1])
        step = next((s for s in STEPS if s in _text(request.messages[:1])), None)
        if step is None:
            return say("Which step?")
        first, answer = STEPS[step]
        return first if request.turn == 0 and first is not None else say(answer)

    def planner_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.model.requests if _offers_plan(r)]

    def step_starts(self) -> list[list[Any]]:
        """The messages of each step request that starts a run (no assistant turn yet)."""
        return [r["messages"] for r in self.model.requests if not _offers_plan(r)
                and not any(m.get("role") == "assistant" for m in r["messages"])]


def _offers_plan(request: dict[str, Any]) -> bool:
    return "make_plan" in [t.get("name") for t in request.get("tools", [])]


def _text(messages: Any) -> str:
    """Every text of `messages` (strings, text blocks, tool results), joined."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key in ("content", "text"):
                if key in value:
                    walk(value[key])

    walk(messages)
    return "\n".join(out)


def _run(fn: Callable[..., Any], scenario: Scenario) -> tuple[str, list[tuple[str, str]]] | str:
    try:
        status, done = fn(scenario.client, TASK, scenario.world.tools, max_replans=2)
        return str(status), [(str(step), str(answer)) for step, answer in done]
    except Exception as e:
        return raised(e)


def check_plan_then_act(plan_then_act: Callable[..., Any]) -> Scorecard:
    """Forced plan, steps on their own histories, a replan with the error, a replan cap."""
    card = Scorecard(f"check_plan_then_act({name_of(plan_then_act)})")
    plain = Scenario([[TESTS, NAME]])
    replan = Scenario([[TESTS, BAD, OLD], [FIX, NAME]], replan_needs_error=True)
    stuck = Scenario([[BAD]])
    outcomes = [_run(plan_then_act, s) for s in (plain, replan, stuck)]
    if all(isinstance(o, str) for o in outcomes):
        card.extend(Check(name, False, str(outcomes[0])) for name in NAMES)  # the stub
        return card
    planners = [r for s in (plain, replan, stuck) for r in s.planner_requests()]
    forced = bool(planners) and all(r.get("tool_choice") == PLAN_CHOICE for r in planners)
    card.append(verdict(NAMES[0], forced, _(
        "the plan requests sent tool_choice={choices!r}; force the tool: {want!r}").format(
            choices=[r.get("tool_choice") for r in planners][:3], want=PLAN_CHOICE)
        if planners else _("no request offered the make_plan tool {tool!r}").format(
            tool=PLAN_TOOL["name"])))
    starts = plain.step_starts()
    own = len(starts) == 2 and all(
        len(m) == 1 and step in _text(m) for m, step in zip(starts, (TESTS, NAME), strict=True))
    card.append(verdict(NAMES[1], own, _(
        "the steps' runs started with {counts} message(s); each step starts a run of its "
        "own, with the step in its first message").format(
            counts=[len(m) for m in starts] or [0])))
    want = ("done", [(TESTS, "1 failed, 2 passed"), (NAME, "The limit is 5 attempts.")])
    card.append(verdict(NAMES[2], outcomes[0] == want, _("returned {got!r}").format(
        got=outcomes[0])[:300]))
    card.append(_replanned(replan, outcomes[1]))
    stopped = outcomes[2] == ("failed", []) and len(stuck.planner_requests()) == 3
    card.append(verdict(NAMES[4], stopped, _(
        "asked for {n} plans (expected 3: the first and 2 new ones) and returned "
        "{got!r}").format(n=len(stuck.planner_requests()), got=outcomes[2])[:300]))
    return card


def _replanned(scenario: Scenario, outcome: Any) -> Check:
    if isinstance(outcome, str):
        return Check(NAMES[3], False, outcome)
    planners = scenario.planner_requests()
    told = len(planners) >= 2 and ERROR in _text(planners[1]["messages"])
    old_ran = any(OLD in _text(m) for m in scenario.step_starts())
    want = ("done", [(TESTS, "1 failed, 2 passed"), (FIX, "MAX_ATTEMPTS = 5"),
                     (NAME, "The limit is 5 attempts.")])  # fmt: skip
    if not told:
        hint = _("the request for a new plan did not say what failed ({error!r})").format(
            error=ERROR)
    elif old_ran:
        hint = _("a step of the old plan ran after a step had failed")
    else:
        hint = _("returned {got!r}").format(got=outcome)[:300]
    return verdict(NAMES[3], told and not old_ran and outcome == want, hint)
