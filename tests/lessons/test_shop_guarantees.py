"""Lesson 15's promises, tried the way they break: the same refund from many threads at
once, a model that repeats a call, an approver slower than the gate, a tool moved to a
process of its own."""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any

import pytest

from looplab import Limits, ScriptedModel, ToolError, call, fake_client, run_agent, say
from looplab.lessons.side_effects import ScriptedApprover, Shop, ask_within, refund_key


def results_sent(model: ScriptedModel) -> list[dict[str, Any]]:
    return [b for body in model.requests[1:] for b in body["messages"][-1]["content"]
            if b.get("type") == "tool_result"]


def refund_at_once(shop: Shop, workers: int) -> list[str]:
    refund, start, said = shop.tools()["refund"], threading.Barrier(workers), []

    def pay() -> None:
        start.wait()
        said.append(refund(order_id="o-1001", amount=30))

    threads = [threading.Thread(target=pay) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return said


def test_the_same_refund_from_many_threads_at_once_is_paid_once() -> None:
    for _ in range(300):
        shop = Shop()
        said = refund_at_once(shop, 4)
        assert shop.refunds == [("o-1001", 30)], shop.refunds
        assert sum("not paid again" in s for s in said) == 3


def test_the_key_is_the_refund_not_an_argument_the_model_writes() -> None:
    refund = Shop().tools()["refund"]
    assert set(refund.input_schema["properties"]) == {"order_id", "amount"}
    assert refund_key("o-1001", 30) == refund_key("o-1001", 30.0) != refund_key("o-1001", 20)


def test_a_repeated_refund_call_pays_once_and_a_different_amount_pays() -> None:
    shop = Shop()
    model = ScriptedModel([call("refund", order_id="o-1001", amount=30),
                           call("refund", order_id="o-1001", amount=30.0),
                           call("refund", order_id="o-1001", amount=5), say("Refunded.")])
    run_agent(fake_client(model), "Refund.", tools=[shop.tools()["refund"]])
    assert shop.refunds == [("o-1001", 30), ("o-1001", 5)]
    assert "not paid again" in str(results_sent(model)[1]["content"])


def test_a_payment_without_a_key_is_refused_not_paid() -> None:
    shop = Shop()
    with pytest.raises(ToolError, match="idempotency key"):
        shop.pay("", "o-1001", 30)
    assert shop.refunds == []


def test_a_refund_moved_to_a_process_of_its_own_is_refused_and_pays_nothing() -> None:
    shop = Shop()
    moved = dataclasses.replace(shop.tools()["refund"], isolate="process")
    model = ScriptedModel([call("refund", order_id="o-1001", amount=30), say("Refunded.")])
    run_agent(fake_client(model), "Refund.", tools=[moved], limits=Limits(tool_timeout_s=20))
    [result] = results_sent(model)
    assert result.get("is_error") is True and "refunded" not in str(result["content"])
    assert shop.refunds == [] and shop.paid_keys == {}


def test_the_shops_tools_refuse_to_change_a_copy_in_another_process() -> None:
    shop = Shop()
    shop.pid = -1  # as seen from a forked child: the shop lives elsewhere
    with pytest.raises(ToolError, match="process"):
        shop.tools()["refund"](order_id="o-1001", amount=30)
    with pytest.raises(ToolError, match="process"):
        shop.tools()["delete_customer"](customer_id="c-41")
    assert shop.refunds == [] and shop.deleted == []


def gate(t: Any, approve: Any) -> Any:
    """The lesson's gate: ask within the approver's time, else do not run."""
    def gated(**tool_input: Any) -> Any:
        answer = ask_within(approve, t.name, tool_input, "write")
        if answer is not True:
            raise ToolError(f"not approved: {t.name} was not run")
        return t.fn(**tool_input)
    return dataclasses.replace(t, fn=gated)


def test_a_yes_after_the_deadline_is_never_paid_and_the_model_is_told_once() -> None:
    shop = Shop()
    human = ScriptedApprover({"refund": True}, delay_s=0.4, within_s=0.1)
    model = ScriptedModel([call("refund", order_id="o-1001", amount=30),
                           call("refund", order_id="o-1001", amount=30), say("Sorry.")])
    result = run_agent(fake_client(model), "Refund.", tools=[gate(shop.tools()["refund"], human)],
                       limits=Limits(tool_timeout_s=0.3))
    time.sleep(0.6)  # both late yeses have come by now
    sent = results_sent(model)
    assert result.done and len(sent) == 2 and len(human.asked) == 2
    assert all(r.get("is_error") is True and "not approved" in str(r["content"]) for r in sent)
    assert shop.refunds == []


def test_ask_within_reads_only_a_true_given_in_time() -> None:
    def broken(name: str, tool_input: Any, kind: str) -> bool:
        raise RuntimeError("the approval service is down")

    assert ask_within(ScriptedApprover({"refund": True}), "refund", {}, "write") is True
    assert ask_within(ScriptedApprover({"refund": "yes"}), "refund", {}, "write") is False  # type: ignore[dict-item]
    assert ask_within(broken, "refund", {}, "write") is False
    slow = ScriptedApprover({"refund": True}, delay_s=0.3, within_s=0.05)
    assert ask_within(slow, "refund", {}, "write") is None
