"""Lesson 18: `step_failed` and `Spent` (looplab.lessons.planning) say what they promise,
and both editions show the comparison and the parallel workers as the lesson's prose
tells them: plan-and-execute sends more requests but a smaller largest request than ReAct,
both succeed, and of three workers started in one turn the failed one is kept."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from editions import NOTEBOOKS, chinese

from looplab import MODEL, Limits, ScriptedModel, ToolError, call, fake_client, run_agent, say, tool
from looplab.lessons.planning import PLAN_CHOICE, PLAN_TOOL, Spent, step_failed

EDITIONS = [NOTEBOOKS / "18_plan_then_act.ipynb", chinese("18")]


@tool
def look(path: str) -> str:
    """Read a file."""
    if path != "a.md":
        raise ToolError(f"no such file: {path}")
    return "A"


def run(*steps: object, turns: int = 5) -> object:
    return run_agent(fake_client(ScriptedModel(list(steps))), "Do it.", tools=[look],
                     limits=Limits(max_turns=turns))


def test_a_step_is_done_when_it_ends_and_its_last_call_worked() -> None:
    assert step_failed(run(call("look", path="a.md"), say("A."))) is None
    assert step_failed(run(say("Nothing to call."))) is None
    # an earlier error the step recovered from does not fail it
    assert step_failed(run(call("look", path="b.md"), call("look", path="a.md"), say("A."))) \
        is None


def test_a_step_fails_on_a_last_error_or_a_stop_before_end_turn() -> None:
    why = step_failed(run(call("look", path="b.md"), say("There is none.")))
    assert why == "look failed: no such file: b.md"
    stopped = step_failed(run(call("look", path="a.md"), call("look", path="a.md"), turns=1))
    assert stopped is not None and "max_turns" in stopped


def test_spent_adds_up_requests_tokens_and_the_largest_request() -> None:
    model = ScriptedModel([call("make_plan", steps=["one"])])
    reply = fake_client(model).messages.create(
        model=MODEL, max_tokens=100, tools=[PLAN_TOOL], tool_choice=PLAN_CHOICE,
        messages=[{"role": "user", "content": "plan"}])
    result = run(call("look", path="a.md"), say("A."))
    spent = Spent()
    spent.reply(reply.usage)
    spent.run(result)  # type: ignore[arg-type]
    turns = result.turns  # type: ignore[attr-defined]
    assert spent.requests == 1 + len(turns) == 3
    assert spent.input_tokens == reply.usage.input_tokens + sum(t.input_tokens for t in turns)
    assert spent.largest == max(reply.usage.input_tokens, *(t.input_tokens for t in turns))


def printed(lesson: Path, cell_id: str) -> str:
    cell = next(c for c in nbformat.read(lesson, 4).cells if c.get("id") == cell_id)
    return "".join(o.get("text", "") for o in cell.outputs)


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_plan_and_execute_beside_react_as_the_prose_says(lesson: Path) -> None:
    rows = printed(lesson, "cell-10").splitlines()
    numbers = [[int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", row)] for row in rows]
    (p_requests, p_in, _, p_largest), (r_requests, r_in, _, r_largest) = numbers
    assert (p_requests, r_requests) == (9, 4)  # same in both editions: 2 plans + 7 step turns
    assert p_in > r_in and p_largest < r_largest
    assert all(row.endswith("True") for row in rows)


@pytest.mark.parametrize("lesson", EDITIONS, ids=["en", "zh-CN"])
def test_the_replan_drops_the_guessed_path_and_the_failed_worker_is_kept(lesson: Path) -> None:
    failed_step, replanned = printed(lesson, "cell-06"), printed(lesson, "cell-08")
    assert "src/login.py" in failed_step.splitlines()[1] and "✗" in failed_step
    assert "src/login.py" not in replanned and replanned.count("✓") == 2
    workers = printed(lesson, "cell-13").splitlines()
    assert re.search(r"\b3\b.*\b3\b", workers[0])  # three calls, all three at once
    assert [line[0] for line in workers[1:4]] == ["✓", "✓", "✗"]
    assert "src/session.py" in workers[3] and "session" in workers[4]
    assert "400" in printed(lesson, "cell-18")
