"""Lesson 15's checker: a permission gate for tools with side effects.

    check_permission_gate(gate)

`gate(tool, kind, approve) -> tool`: the same tool (same definition) whose calls pass a
gate first. `kind` is `"read"` (runs without asking), `"write"` or `"dangerous"` (runs
only when `ask_within(approve, name, input, kind)` gives `True`: a yes given within the
approver's time; otherwise the call raises `ToolError`, so the model gets an `is_error`
result). Any other kind is refused when the gate is made (fail closed). A yes that comes
too late must never run the call: the model was told it did not happen.
"""

from __future__ import annotations

import time
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
    Message("a yes that comes after the approver's time runs nothing; the model gets is_error"),
)
REFUND: dict[str, Any] = {"order_id": "o-1001", "amount": 30}
LATE = {"delay_s": 0.6, "within_s": 0.2}  # the human answers yes, 0.4 s too late
TOOL_TIMEOUT_S = 0.4  # the loop gives up on a call before the late yes comes


def _run(gate: Callable[..., Any], steps: list[Any], answers: dict[str, bool],
         late: bool = False) -> tuple[Any, ...]:  # fmt: skip
    """One scripted run with every shop tool gated by its kind: (shop, approver, results).
    `late`: the approver answers after its time, and the loop gives up on a call sooner."""
    shop = Shop()
    human = ScriptedApprover(answers)
    if late:
        human.delay_s, human.within_s = LATE["delay_s"], LATE["within_s"]
    kinds = {"read_ticket": "read", "refund": "write", "delete_customer": "dangerous"}
    tools = [gate(t, kinds[name], human) for name, t in shop.tools().items()]
    model = ScriptedModel([*steps, say("Done.")])
    limits = Limits(max_turns=len(steps) + 1,
                    tool_timeout_s=TOOL_TIMEOUT_S if late else Limits.tool_timeout_s)
    run_agent(fake_client(model, max_retries=0), "Handle ticket T-7.", tools=tools,
              limits=limits)
    if late:
        time.sleep(LATE["delay_s"])  # the late answers have come by now
    results = [b for body in model.requests[1:] for b in body["messages"][-1]["content"]]
    return shop, human, results[-1] if results else None


def check_permission_gate(gate: Callable[..., Any]) -> Scorecard:
    card = Scorecard(f"check_permission_gate({name_of(gate)})")
    checks = [_read, _approved, _denied, _dangerous, _unknown, _definition, _late]
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


def _late(gate: Callable[..., Any], name: Message) -> Check:
    shop, human, result = _run(gate, [call("refund", **REFUND)], {"refund": True}, late=True)
    ok = not shop.refunds and len(human.asked) == 1 and field_of(result, "is_error") is True
    return verdict(name, ok, _("the approver said yes after {late:g} s, {within:g} s allowed: "
                               "refunds paid {paid!r}, the tool_result was {result!r}; ask "
                               "with ask_within, which never uses a late answer").format(
        late=LATE["delay_s"], within=LATE["within_s"], paid=shop.refunds, result=result)[:400])
