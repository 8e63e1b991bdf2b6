"""Lesson 18's checker: the reference plan_then_act passes, a stub is one line, and each
plausible wrong answer fails the check that names it."""

from __future__ import annotations

from typing import Any

from scorecards import failed, hint, stub

import looplab
from looplab import Limits, run_agent
from looplab.exercises import check_plan_then_act
from looplab.lessons.planning import PLAN_CHOICE, PLAN_TOOL, step_failed
from looplab.lessons.subagents import final_text

NAMES = ("the plan comes from a request that forces make_plan with tool_choice",
         "each step runs in the loop on a history of its own",
         "the steps' answers come back in order, with \"done\"",
         "a failed step asks for a new plan with its error; the old plan's rest never runs",
         "a step that keeps failing ends it after max_replans new plans: \"failed\"")  # fmt: skip


def plan_then_act(client: Any, task: str, tools: Any, max_replans: int = 2, *,
                  forced: bool = True, tell: bool = True, keep_old: bool = False,
                  one_history: bool = False, cap: int | None = None) -> Any:  # fmt: skip
    def ask(done: Any = (), failed: Any = None) -> list[str]:
        lines = [f"Task: {task}"] + [f"Done: {s} -> {a}" for s, a in done]
        if failed and tell:
            lines.append(f"Failed: {failed[0]} -> {failed[1]}")
        choice = {"tool_choice": PLAN_CHOICE} if forced else {}
        reply = client.messages.create(
            model=looplab.MODEL, max_tokens=1024, tools=[PLAN_TOOL], **choice,
            messages=[{"role": "user", "content": "\n".join(lines)}])
        return list(reply.content[0].input["steps"])

    plan, done, replans, history = ask(), [], 0, None
    limit = max_replans if cap is None else cap
    while plan:
        step = plan.pop(0)
        start = ([*history, {"role": "user", "content": step}]
                 if one_history and history else step)
        result = run_agent(client, start, tools=tools, limits=Limits(max_turns=4))
        history = result.messages
        why = step_failed(result)
        if why is None:
            done.append((step, final_text(result)))
        elif replans == limit:
            return "failed", done
        else:
            replans += 1
            plan = plan + ask(done, (step, why)) if keep_old else ask(done, (step, why))
    return "done", done


def wrong(**how: Any) -> Any:
    return lambda c, t, tools, max_replans=2: plan_then_act(c, t, tools, max_replans, **how)


def test_the_reference_passes() -> None:
    card = check_plan_then_act(plan_then_act)
    assert card.passed and len(card) == 5, str(card)


def test_a_stub_is_one_line_not_written_yet() -> None:
    card = check_plan_then_act(stub)
    assert failed(card) == list(NAMES)
    assert str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_a_plan_asked_for_without_tool_choice_fails() -> None:
    card = check_plan_then_act(wrong(forced=False))
    assert failed(card) == [NAMES[0]] and "tool_choice=[None" in hint(card, NAMES[0])


def test_a_replan_not_told_what_failed_fails() -> None:
    card = check_plan_then_act(wrong(tell=False))
    assert NAMES[3] in failed(card)
    assert hint(card, NAMES[3]) == ("the request for a new plan did not say what failed "
                                    "('no such file')")


def test_going_on_with_the_old_plan_after_a_replan_fails() -> None:
    card = check_plan_then_act(wrong(keep_old=True))
    assert failed(card) == [NAMES[3]]
    assert hint(card, NAMES[3]) == "a step of the old plan ran after a step had failed"


def test_steps_that_share_one_history_fail() -> None:
    assert NAMES[1] in failed(check_plan_then_act(wrong(one_history=True)))


def test_replanning_without_a_limit_fails_and_does_not_hang() -> None:
    card = check_plan_then_act(wrong(cap=10**6))
    assert failed(card) == [NAMES[4]]
    assert "the replans have no limit" in hint(card, NAMES[4])


def test_giving_up_at_the_first_failure_fails() -> None:
    card = check_plan_then_act(wrong(cap=0))
    assert failed(card) == [NAMES[3], NAMES[4]]
