"""Lesson 15's saga: side effects that fail halfway, undone in reverse order.

    saga = Saga(orders.actions(), orders.undo())
    said = saga.run([("reserve_stock", {...}), ("charge_card", {...}), ("book_shipping", {...})])

Placing an order takes three side effects in three systems (stock, card, carrier), and no
transaction spans them. When a later one fails, the earlier ones already happened; a saga
undoes them with **compensating actions** (release the stock, refund the charge), the last
done undone first. Its promises:

- Each step is written into the journal as `started` *before* its side effect and `done`
  after it. A Ctrl-C or a crash between (or inside) steps leaves the journal saying what may
  have happened; `compensate()` undoes exactly that, later, from the journal alone.
- A step that raised an `Exception` did nothing (the tool says so by raising); the steps
  before it are compensated at once, in reverse order, and `run` raises a `ToolError` that
  tells the model what failed and what was undone.
- A compensation that fails does not stop the others; it stays in the journal as
  `undo failed`, so a later `compensate()` (or a person) tries it again.
- Compensations are keyed like the lesson's refunds (`Orders.once`): undoing twice, or
  undoing a step that never got done, changes nothing.

The journal lives in this object, as the shop's keys live in `Shop`; in real life it is a
table in the database the steps change, written in the same transaction as each step's own
record where it can be.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import LooplabError
from ..i18n import _
from ..running.output import ToolError

Action = Callable[..., str]
STATES = ("started", "done", "failed", "undone", "undo failed")
TO_UNDO = ("started", "done", "undo failed")
"""The journal states whose side effect may have happened and is not undone yet."""
_BUSY = "…"  # a claimed key whose effect is under way


@dataclass
class Entry:
    """One step of a saga, as the journal keeps it: what, with which input, how far it got."""

    step: str
    args: dict[str, Any]
    state: str = "started"
    said: str = ""


@dataclass
class Saga:
    """Runs steps by name from `actions`; their compensations are `undo`, by the same name."""

    actions: Mapping[str, Action]
    undo: Mapping[str, Action]
    journal: list[Entry] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        missing = sorted(set(self.actions) - set(self.undo))
        if missing:  # fail closed: a step nobody can undo has no place in a saga
            raise ValueError(f"no compensating action for {', '.join(missing)}: give each "
                             "step of a saga an undo (or run it last, outside the saga)")

    def run(self, steps: Sequence[tuple[str, dict[str, Any]]]) -> str:
        """Do `steps` in order. All done: what they said. One raised an `Exception`: the
        ones before it are compensated, last first, and a `ToolError` says what failed and
        what was undone. A `BaseException` (Ctrl-C) leaves the journal for `compensate()`."""
        for step, _args in steps:
            if step not in self.actions:
                raise ValueError(f"unknown step {step!r}: known are {', '.join(self.actions)}")
        said = []
        for step, args in steps:
            entry = Entry(step, dict(args))
            with self._lock:
                self.journal.append(entry)  # before the side effect: a crash leaves it here
            try:
                entry.said = self.actions[step](**args)
            except Exception as error:
                entry.state, entry.said = "failed", str(error)
                undone = self.compensate()
                raise ToolError(_("{step} failed: {error}. Nothing was placed; undone, last "
                                  "first: {undone}").format(
                                      step=step, error=error,
                                      undone=_("; ").join(undone) or "-")) from error  # fmt: skip
            entry.state = "done"
            said.append(entry.said)
        return _("; ").join(said)

    def compensate(self) -> list[str]:
        """Undo, last first, every step in the journal that may have happened and is not
        undone yet; what each compensation said. One that fails is kept as `undo failed`
        (try again later) and the others still run."""
        with self._lock:
            pending = [e for e in reversed(self.journal) if e.state in TO_UNDO]
        said = []
        for entry in pending:
            try:
                words = self.undo[entry.step](**entry.args)
            except Exception as error:
                entry.state = "undo failed"
                words = _("could not undo {step}: {error} (left in the journal to undo "
                          "later)").format(step=entry.step, error=error)
            else:
                entry.state = "undone"
            said.append(words)
        return said

    def record(self) -> list[tuple[str, str]]:
        """The journal, as (step, state) pairs in the order the steps began."""
        with self._lock:
            return [(e.step, e.state) for e in self.journal]


class CarrierDown(LooplabError, ConnectionError):
    """The carrier did not answer."""


def carrier_down(order_id: str) -> None:
    """A carrier that never answers: every booking fails."""
    raise CarrierDown(order_id)


def order_steps(order_id: str, sku: str, amount: float) -> list[tuple[str, dict[str, Any]]]:
    """The saga of one order: reserve the item, charge the card, book shipping."""
    return [("reserve_stock", {"order_id": order_id, "sku": sku}),
            ("charge_card", {"order_id": order_id, "amount": amount}),
            ("book_shipping", {"order_id": order_id})]


@dataclass
class Orders:
    """Stock, card charges and shipments, each side effect done once per idempotency key.

    `carrier(order_id)` books the parcel; the lesson's is down (`carrier_down`)."""

    stock: dict[str, int] = field(default_factory=lambda: {"mug": 5})
    reserved: dict[str, str] = field(default_factory=dict)
    charged: dict[str, float] = field(default_factory=dict)
    shipped: list[str] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)
    carrier: Callable[[str], None] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def once(self, key: str, effect: Callable[[], str]) -> str:
        """`effect()` once per `key`: the key is claimed under the lock before the effect,
        and released if it raised (nothing happened, a retry may do it)."""
        with self._lock:
            done = self.keys.get(key)
            if done is None:
                self.keys[key] = _BUSY
        if done is not None:
            return done + _(" (already done: not done again)")
        try:
            done = effect()
        except BaseException:
            with self._lock:
                del self.keys[key]
            raise
        with self._lock:
            self.keys[key] = done
        return done

    def actions(self) -> dict[str, Action]:
        """The saga's steps: reserve_stock, charge_card, book_shipping."""

        def reserve_stock(order_id: str, sku: str) -> str:
            def effect() -> str:
                with self._lock:
                    self.stock[sku] -= 1
                    self.reserved[order_id] = sku
                return _("reserved 1 {sku} for {order_id}").format(sku=sku, order_id=order_id)
            return self.once(f"reserve-{order_id}-{sku}", effect)

        def charge_card(order_id: str, amount: float) -> str:
            def effect() -> str:
                with self._lock:
                    self.charged[order_id] = amount
                return _("charged {amount:g} EUR for {order_id}").format(amount=amount,
                                                                         order_id=order_id)
            return self.once(f"charge-{order_id}-{float(amount):g}", effect)

        def book_shipping(order_id: str) -> str:
            def effect() -> str:
                if self.carrier is not None:
                    try:
                        self.carrier(order_id)
                    except CarrierDown:
                        raise ToolError(_("the carrier did not answer: nothing was "
                                          "booked")) from None
                with self._lock:
                    self.shipped.append(order_id)
                return _("booked shipping for {order_id}").format(order_id=order_id)
            return self.once(f"ship-{order_id}", effect)

        return {"reserve_stock": reserve_stock, "charge_card": charge_card,
                "book_shipping": book_shipping}

    def undo(self) -> dict[str, Action]:
        """The compensations, by the step they undo; keyed, so undoing twice does nothing."""

        def release_stock(order_id: str, sku: str) -> str:
            def effect() -> str:
                with self._lock:
                    if self.reserved.pop(order_id, None) is None:
                        return _("nothing reserved for {order_id}: nothing to release").format(
                            order_id=order_id)
                    self.stock[sku] += 1
                return _("released the {sku} reserved for {order_id}").format(
                    sku=sku, order_id=order_id)
            return self.once(f"release-{order_id}-{sku}", effect)

        def refund_charge(order_id: str, amount: float) -> str:
            def effect() -> str:
                with self._lock:
                    if self.charged.pop(order_id, None) is None:
                        return _("nothing charged for {order_id}: nothing to refund").format(
                            order_id=order_id)
                return _("refunded the {amount:g} EUR charged for {order_id}").format(
                    amount=amount, order_id=order_id)
            return self.once(f"refund-{order_id}-{float(amount):g}", effect)

        def cancel_shipping(order_id: str) -> str:
            def effect() -> str:
                with self._lock:
                    if order_id not in self.shipped:
                        return _("nothing booked for {order_id}: nothing to cancel").format(
                            order_id=order_id)
                    self.shipped.remove(order_id)
                return _("cancelled the shipping of {order_id}").format(order_id=order_id)
            return self.once(f"cancel-{order_id}", effect)

        return {"reserve_stock": release_stock, "charge_card": refund_charge,
                "book_shipping": cancel_shipping}

    def place_order(self, saga: Saga | None = None) -> Callable[..., str]:
        """The model's tool: place an order as one saga (a fresh one unless `saga` is given)."""

        def place_order(order_id: str, sku: str, amount: float) -> str:
            """Place an order: reserve the item, charge the card, book shipping. If a step
            fails, the earlier ones are undone and nothing is placed."""
            run = saga if saga is not None else Saga(self.actions(), self.undo())
            return run.run(order_steps(order_id, sku, amount))

        return place_order
