"""Lesson 14's promise: runs paid from one `Ledger` never spend more than its budget
together, whether they run at once (threads) or inside each other (a sub-agent's own
sub-agent), because each request is reserved before it is sent."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from looplab import ToolError, call, fake_client, reply, say, tool
from looplab.fake import FunctionModel, Request
from looplab.lessons.subagents import Ledger, final_text

COSTLY = {"input_tokens": 600, "output_tokens": 400}  # 1,000 tokens a reply


def endless(request: Request) -> Any:
    """Never finishes: a new call each turn, 1,000 tokens a reply."""
    return reply(call("note", text=f"step {request.number}"), usage=COSTLY)


@tool
def note(text: str) -> str:
    """Write a note."""
    return "noted"


def billed(*models: FunctionModel) -> int:
    return 1_000 * sum(len(m.requests) for m in models)


def at_once(workers: int, target: Any, *args: Any) -> None:
    """`target(*args)` in `workers` threads released together."""
    start = threading.Barrier(workers)

    def go() -> None:
        start.wait()
        target(*args)

    threads = [threading.Thread(target=go) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)


def spend_at_once(workers: int) -> tuple[Ledger, list[FunctionModel]]:
    ledger, models = Ledger(3_000), [FunctionModel(endless) for _ in range(workers)]
    queue = list(models)
    lock = threading.Lock()

    def work() -> None:
        with lock:
            model = queue.pop()
        ledger.run(fake_client(model, max_retries=0), "Take notes.", tools=[note])

    at_once(workers, work)
    return ledger, models


@pytest.mark.parametrize("workers", [3, 8])
def test_runs_in_threads_at_once_spend_no_more_than_the_budget_together(workers: int) -> None:
    for _ in range(5):
        ledger, models = spend_at_once(workers)
        assert 0 < billed(*models) <= 3_000
        assert ledger.used == billed(*models) and ledger.held == 0


def test_a_sub_agent_inside_a_sub_agent_spends_from_the_same_budget() -> None:
    ledger = Ledger(3_000)
    model = FunctionModel(lambda r: reply(call("delegate", task="deeper"), usage=COSTLY)
                          if "delegate" in r.tool_names and len(r.messages) == 1
                          else endless(r))
    client = fake_client(model, max_retries=0)

    def make(tools: list[Any]) -> Any:
        def delegate(task: str) -> str:
            """Hand a task to a sub-agent."""
            result = ledger.run(client, task, tools=tools, max_turns=5)
            if not result.done:
                raise ToolError(f"stopped: {result.status}")
            return final_text(result)
        return tool(delegate)

    inner = make([note])
    result = ledger.run(client, "Delegate.", tools=[make([note, inner])])
    assert result is not None and result.status == "token_budget"
    assert 0 < billed(model) <= 3_000 and ledger.used == billed(model)


def test_the_run_stops_before_a_request_the_ledger_cannot_cover_and_returns_its_result() -> None:
    ledger = Ledger(1_000, used=800)  # 200 left: less than max_tokens alone
    model = FunctionModel(endless)
    result = ledger.run(fake_client(model), "Take notes.", tools=[note])
    assert result.status == "token_budget" and not model.requests
    assert "the shared ledger has 200 of 1,000 tokens left" in result.detail
    assert ledger.used == 800 and ledger.held == 0


def test_a_reply_that_reports_no_tokens_is_charged_what_was_reserved() -> None:
    ledger = Ledger(10_000)
    model = FunctionModel(lambda r: reply(say("done"), usage={"input_tokens": 0,
                                                               "output_tokens": 0}))
    result = ledger.run(fake_client(model), "Say done.", max_tokens=1_000)
    assert result.done
    assert ledger.used > 1_000 and ledger.held == 0  # the input counted + max_tokens


def test_a_finished_run_charges_what_its_replies_report() -> None:
    ledger = Ledger(10_000)
    result = ledger.run(fake_client(FunctionModel(lambda r: say("hi"))), "hello")
    assert result.done and ledger.used == sum(result.usage.values()) > 0


def grab(ledger: Ledger, granted: list[int | None]) -> None:
    for _ in range(10):
        granted.append(ledger.reserve(1))


def test_reservations_from_many_threads_never_pass_the_budget() -> None:
    for _ in range(20):
        ledger, granted = Ledger(100), []
        at_once(32, grab, ledger, granted)
        holds = [h for h in granted if h is not None]
        assert len(holds) == 100 and len(set(holds)) == 100 and ledger.remaining == 0


def test_a_ledger_refuses_a_budget_that_is_not_a_whole_number() -> None:
    with pytest.raises(ValueError, match="whole number"):
        Ledger(-1)
    with pytest.raises(ValueError, match="whole number"):
        Ledger(10, used=2.5)  # type: ignore[arg-type]
