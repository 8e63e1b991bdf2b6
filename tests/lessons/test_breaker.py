"""Lesson 15's circuit breaker, tried the way it breaks: failures in a row, a success between
them, many threads at once while open and half open, a Ctrl-C in the trial call, and the
model told "circuit open" through the real SDK."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from looplab import FakeClock, ScriptedModel, ToolError, call, fake_client, run_agent, say, tool
from looplab.lessons.breaker import CircuitBreaker


class Flaky:
    def __init__(self, fails: bool = True, delay_s: float = 0.0) -> None:
        self.fails, self.delay_s, self.runs = fails, delay_s, 0
        self._lock = threading.Lock()

    def __call__(self) -> str:
        with self._lock:
            self.runs += 1
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.fails:
            raise ToolError("the carrier did not answer")
        return "booked"


def fail_times(breaker: CircuitBreaker, fn: Flaky, n: int) -> list[str]:
    said = []
    for _ in range(n):
        with pytest.raises(ToolError) as failed:
            breaker.call("book", fn)
        said.append(str(failed.value))
    return said


def test_after_n_failures_in_a_row_it_stops_calling_until_the_cool_down() -> None:
    clock, fn = FakeClock(), Flaky()
    breaker = CircuitBreaker(after=3, cool_down_s=60, clock=clock)
    said = fail_times(breaker, fn, 5)
    assert fn.runs == 3 and breaker.state == "open"
    assert said[3].startswith("circuit open") and "60 s" in said[3]
    clock.advance(59)
    fail_times(breaker, fn, 1)
    assert fn.runs == 3
    clock.advance(1)
    assert breaker.state == "half-open"
    fn.fails = False
    assert breaker.call("book", fn) == "booked" and breaker.state == "closed"


def test_a_failed_trial_opens_it_for_another_cool_down() -> None:
    clock, fn = FakeClock(), Flaky()
    breaker = CircuitBreaker(after=2, cool_down_s=10, clock=clock)
    fail_times(breaker, fn, 2)
    clock.advance(10)
    fail_times(breaker, fn, 2)  # the trial runs and fails; the next is refused
    assert fn.runs == 3 and breaker.state == "open"


def test_a_success_between_failures_starts_the_count_again() -> None:
    fn = Flaky()
    breaker = CircuitBreaker(after=3, clock=FakeClock())
    fail_times(breaker, fn, 2)
    fn.fails = False
    breaker.call("book", fn)
    fn.fails = True
    fail_times(breaker, fn, 2)
    assert breaker.state == "closed" and fn.runs == 5


def at_once(breaker: CircuitBreaker, fn: Flaky, workers: int) -> list[str]:
    start, said = threading.Barrier(workers), []

    def go() -> None:
        start.wait()
        try:
            said.append(breaker.call("book", fn))
        except ToolError as error:
            said.append(str(error))

    threads = [threading.Thread(target=go) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return said


def test_threads_at_once_run_nothing_while_open_and_one_trial_when_half_open() -> None:
    for _ in range(50):
        clock, fn = FakeClock(), Flaky(delay_s=0.002)
        breaker = CircuitBreaker(after=3, cool_down_s=60, clock=clock)
        fail_times(breaker, fn, 3)
        said = at_once(breaker, fn, 8)
        assert fn.runs == 3 and all(s.startswith("circuit open") for s in said)
        clock.advance(60)  # half open: one trial, and it fails again
        said = at_once(breaker, fn, 8)
        assert fn.runs == 4 and said.count("the carrier did not answer") == 1, said
        assert breaker.state == "open"


def test_a_ctrl_c_in_the_trial_call_lets_the_next_call_try() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(after=1, cool_down_s=5, clock=clock)
    fail_times(breaker, Flaky(), 1)
    clock.advance(5)

    def interrupted() -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        breaker.call("book", interrupted)
    assert breaker.call("book", Flaky(fails=False)) == "booked"


def test_the_model_reads_circuit_open_and_the_tool_is_not_run() -> None:
    clock, runs = FakeClock(), []

    def book_shipping(order_id: str) -> str:
        """Book shipping for an order."""
        runs.append(order_id)
        raise ToolError("the carrier did not answer")

    breaker = CircuitBreaker(after=2, cool_down_s=60, clock=clock)
    model = ScriptedModel([call("book_shipping", order_id=f"o-{n}") for n in range(4)]
                          + [say("Later.")])
    run_agent(fake_client(model, clock=clock), "Ship it.",
              tools=[breaker.guard(tool(book_shipping))])
    sent = [b for body in model.requests[1:] for b in body["messages"][-1]["content"]
            if b["type"] == "tool_result"]
    assert len(runs) == 2 and all(r["is_error"] for r in sent)
    assert [str(r["content"]).startswith("circuit open") for r in sent] == [False, False,
                                                                            True, True]


@pytest.mark.parametrize("bad", [{"after": 0}, {"after": 1.5}, {"cool_down_s": 0}])
def test_settings_that_would_never_close_or_open_are_refused(bad: Any) -> None:
    with pytest.raises(ValueError):
        CircuitBreaker(**bad)
