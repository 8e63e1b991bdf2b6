"""Lesson 15's checker: a permission gate for tools with side effects.

    check_permission_gate(gate)

`gate(tool, kind, approve) -> tool`: the same tool (same definition) whose calls pass a
gate first. `kind` is `"read"` (runs without asking), `"write"` or `"dangerous"` (runs
only when `approve(name, input, kind)` returns `True`; otherwise the call raises
`ToolError`, so the model gets an `is_error` result). Any other kind is refused when the
gate is made (fail closed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.limits import Limits
from ..core.loop import run_agent
from ..fake import ScriptedModel, call, fake_client, say
from ..i18n import Message, _
from ..lessons.side_effects import ScriptedApprover, Shop
from .common import field_of, name_of, raised
from .scorecard import Check, Scorecard, verdict

NAMES = (
    Message("a read tool runs without asking"),
    Message("an approved write runs, and the approver was asked (name, input, kind)"),
    Message("a denied write does not run; the model gets an is_error result"),
    Message("a dangerous call is asked about as dangerous; denied, it does not run"),
    Message("an unknown kind is refused when the gate is made (fail closed)"),
    Message("the gated tool keeps the tool's definition"),
)
REFUND: dict[str, Any] = {"order_id": "o-1001", "amount": 30, "idempotency_key": "refund-o-1001"}


def _run(gate: Callable[..., Any], steps: list[Any], answers: dict[str, bool]) -> tuple[Any, ...]:
    """One scripted run with every shop tool gated by its kind: (shop, approver, results)."""
    shop, approver = Shop(), ScriptedApprover(answers)
    kinds = {"read_ticket": "read", "refund": "write", "delete_customer": "dangerous"}
    tools = [gate(t, kinds[name], approver) for name, t in shop.tools().items()]
    model = ScriptedModel([*steps, say("Done.")])
    run_agent(fake_client(model, max_retries=0), "Handle ticket T-7.", tools=tools,
              limits=Limits(max_turns=len(steps) + 1))
    results = [b for body in model.requests[1:] for b in body["messages"][-1]["content"]]
    return shop, approver, results[-1] if results else None


def check_permission_gate(gate: Callable[..., Any]) -> Scorecard:
    card = Scorecard(f"check_permission_gate({name_of(gate)})")
    checks = [_read, _approved, _denied, _dangerous, _unknown, _definition]
    for name, check in zip(NAMES, checks, strict=True):
        try:
            card.append(check(gate, name))
        except Exception as e:
            card.append(Check(name, False, raised(e)))
    return card


def _read(gate: Callable[..., Any], name: Message) -> Check:
    # the approver would say yes: only a gate that does not ask passes
    _shop, approver, result = _run(gate, [call("read_ticket", ticket_id="T-7")],
                                   {"read_ticket": True})
    ok = not approver.asked and "o-1001" in str(field_of(result, "content"))
    return verdict(name, ok, _("asked {asked!r}; result {result!r}").format(
        asked=approver.asked, result=result)[:300])


def _approved(gate: Callable[..., Any], name: Message) -> Check:
    shop, approver, _result = _run(gate, [call("refund", **REFUND)], {"refund": True})
    ok = shop.refunds == [("o-1001", 30)] and approver.asked == [("refund", REFUND, "write")]
    return verdict(name, ok, _("refunds paid {paid!r}; approver asked {asked!r}").format(
        paid=shop.refunds, asked=approver.asked)[:300])


def _denied(gate: Callable[..., Any], name: Message) -> Check:
    shop, _approver, result = _run(gate, [call("refund", **REFUND)], {})
    ok = not shop.refunds and field_of(result, "is_error") is True
    return verdict(name, ok, _("refunds paid {paid!r}; the tool_result was {result!r}").format(
        paid=shop.refunds, result=result)[:300])


def _dangerous(gate: Callable[..., Any], name: Message) -> Check:
    shop, approver, result = _run(gate, [call("delete_customer", customer_id="c-41")], {})
    ok = (not shop.deleted and field_of(result, "is_error") is True
          and [kind for *_rest, kind in approver.asked] == ["dangerous"])
    return verdict(name, ok, _("deleted {deleted!r}; approver asked {asked!r}").format(
        deleted=shop.deleted, asked=approver.asked)[:300])


def _unknown(gate: Callable[..., Any], name: Message) -> Check:
    t = Shop().tools()["delete_customer"]
    try:
        gated = gate(t, "admin", ScriptedApprover({"delete_customer": True}))
    except NotImplementedError:
        raise
    except Exception:
        return Check(name, True)
    return Check(name, False, _("gate(tool, 'admin', approve) returned {value!r}").format(
        value=gated)[:300])


def _definition(gate: Callable[..., Any], name: Message) -> Check:
    t = Shop().tools()["refund"]
    gated = gate(t, "write", ScriptedApprover({}))
    got = gated.definition() if hasattr(gated, "definition") else gated
    return verdict(name, got == t.definition(),
                   _("the gated tool's definition is {got!r}").format(got=got)[:300])
