"""Lesson 15's saga, tried the way it breaks: a step that fails halfway, a compensation that
fails too, a Ctrl-C between steps and inside one, undoing twice, and the model told, through
the real SDK, what was undone."""

from __future__ import annotations

from typing import Any

import pytest

from looplab import ScriptedModel, ToolError, call, fake_client, run_agent, say, tool
from looplab.lessons.saga import CarrierDown, Orders, Saga

STEPS = [("reserve_stock", {"order_id": "o-2002", "sku": "mug"}),
         ("charge_card", {"order_id": "o-2002", "amount": 30}),
         ("book_shipping", {"order_id": "o-2002"})]


def down(order_id: str) -> None:
    raise CarrierDown(order_id)


def nothing_left(orders: Orders) -> None:
    assert orders.stock == {"mug": 5} and orders.reserved == {} and orders.charged == {}
    assert orders.shipped == []


def test_all_steps_done_places_the_order() -> None:
    orders = Orders()
    saga = Saga(orders.actions(), orders.undo())
    said = saga.run(STEPS)
    assert "booked shipping for o-2002" in said
    assert orders.charged == {"o-2002": 30} and orders.shipped == ["o-2002"]
    assert saga.record() == [("reserve_stock", "done"), ("charge_card", "done"),
                             ("book_shipping", "done")]


def test_a_failing_last_step_undoes_the_earlier_ones_last_first() -> None:
    orders = Orders(carrier=down)
    saga = Saga(orders.actions(), orders.undo())
    with pytest.raises(ToolError) as failed:
        saga.run(STEPS)
    nothing_left(orders)
    text = str(failed.value)
    assert text.index("refunded the 30 EUR") < text.index("released the mug")  # last first
    assert saga.record() == [("reserve_stock", "undone"), ("charge_card", "undone"),
                             ("book_shipping", "failed")]


def test_the_model_reads_what_was_undone_as_an_is_error_result() -> None:
    orders = Orders(carrier=down)
    model = ScriptedModel([call("place_order", order_id="o-2002", sku="mug", amount=30),
                           say("The carrier is down; nothing was charged.")])
    run_agent(fake_client(model), "Order a mug.", tools=[tool(orders.place_order())])
    [result] = [b for b in model.requests[1]["messages"][-1]["content"]
                if b["type"] == "tool_result"]
    assert result["is_error"] is True
    assert "book_shipping failed" in str(result["content"])
    assert "refunded the 30 EUR charged for o-2002" in str(result["content"])
    nothing_left(orders)


def test_a_compensation_that_fails_does_not_stop_the_others_and_is_kept_to_retry() -> None:
    orders = Orders(carrier=down)
    undo = orders.undo()
    broken = {"down": True}
    real_refund = undo["charge_card"]

    def refund(**args: Any) -> str:
        if broken["down"]:
            raise RuntimeError("the payment service is down")
        return real_refund(**args)

    saga = Saga(orders.actions(), {**undo, "charge_card": refund})
    with pytest.raises(ToolError, match="could not undo charge_card"):
        saga.run(STEPS)
    assert orders.reserved == {} and orders.charged == {"o-2002": 30}  # stock still released
    assert ("charge_card", "undo failed") in saga.record()
    broken["down"] = False
    assert saga.compensate() == ["refunded the 30 EUR charged for o-2002"]
    nothing_left(orders)
    assert saga.compensate() == []  # nothing left to undo


@pytest.mark.parametrize("where", ["between", "inside"])
def test_a_ctrl_c_leaves_the_journal_and_compensate_undoes_it_later(where: str) -> None:
    orders = Orders()
    actions = orders.actions()
    real_charge = actions["charge_card"]

    def charge(**args: Any) -> str:
        if where == "inside":
            real_charge(**args)  # the money moved, then Ctrl-C before the journal says so
        raise KeyboardInterrupt

    saga = Saga({**actions, "charge_card": charge}, orders.undo())
    with pytest.raises(KeyboardInterrupt):
        saga.run(STEPS)
    assert saga.record() == [("reserve_stock", "done"), ("charge_card", "started")]
    assert orders.shipped == []  # nothing after the interrupt ran
    saga.compensate()
    nothing_left(orders)
    assert saga.record() == [("reserve_stock", "undone"), ("charge_card", "undone")]


def test_undoing_twice_or_undoing_what_never_happened_changes_nothing() -> None:
    orders = Orders()
    undo = orders.undo()
    assert "nothing charged" in undo["charge_card"](order_id="o-9", amount=30)
    orders.actions()["charge_card"](order_id="o-2002", amount=30)
    first = undo["charge_card"](order_id="o-2002", amount=30)
    again = undo["charge_card"](order_id="o-2002", amount=30)
    assert "refunded" in first and "not done again" in again and orders.charged == {}


def test_a_step_without_a_compensation_is_refused_when_the_saga_is_made() -> None:
    orders = Orders()
    undo = orders.undo()
    del undo["charge_card"]
    with pytest.raises(ValueError, match="no compensating action for charge_card"):
        Saga(orders.actions(), undo)
