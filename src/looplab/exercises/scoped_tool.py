"""Lesson 20's checker: the user's scopes reach the tool through the harness, not the model.

    check_scoped_tool(make_get_invoice)

`make_get_invoice(user, invoices) -> get_invoice`: `user` is `{"name", "tenant",
"scopes"}` (the signed-in user, known to the harness); `invoices` maps each invoice id to
`{"tenant", "customer", "amount"}`. `get_invoice(invoice_id: str) -> str` is a tool (type
hints, a docstring) whose only input is the id: the model never chooses whose invoices it
reads. It returns the invoice (its id, customer and amount) when the user's `scopes` hold
`"invoices:read"` and the invoice is the user's tenant's; otherwise it raises `ToolError`,
so the model gets an `is_error` result, and another tenant's invoice gets the same answer as
an id that does not exist (the refusal does not tell that it exists). The checker runs a
scripted model that asks for invoices through the loop, with ids and amounts of its own;
asking for another tenant's, it also names that tenant, as a fooled model would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.limits import Limits
from ..core.loop import run_agent
from ..core.tools import as_tools
from ..fake import ScriptedModel, call, fake_client, say
from ..i18n import Message, _
from .common import field_of, name_of, raised, text_of
from .scorecard import Check, Scorecard, verdict

INVOICES = {
    "INV-7001": {"tenant": "initech", "customer": "Lumbergh GmbH", "amount": 4_310},
    "INV-7002": {"tenant": "initech", "customer": "Bolton Ltd", "amount": 275},
    "INV-8001": {"tenant": "hooli", "customer": "Belson Inc", "amount": 98_765},
}
READER = {"name": "milton", "tenant": "initech", "scopes": ["invoices:read"]}
NO_SCOPE = {"name": "peter", "tenant": "initech", "scopes": ["tickets:read"]}
NAMES = (
    Message("your tenant's invoice comes back (id, customer, amount)"),
    Message("another tenant's invoice is refused by the tool (is_error), none of it shown"),
    Message("another tenant's invoice gets the same answer as one that does not exist"),
    Message("without the invoices:read scope even your own invoice is refused"),
    Message("the tool's only input is the invoice id: the model cannot name a tenant"),
)


def _result(make: Callable[..., Any], user: dict[str, Any], invoice_id: str,
            **extra: str) -> Any:
    """The tool_result the loop sends back for one scripted call of `get_invoice`, whose
    input holds `invoice_id` and `extra` (what a fooled model adds)."""
    made = make(dict(user, scopes=list(user["scopes"])), {k: dict(v) for k, v in INVOICES.items()})
    model = ScriptedModel([call("get_invoice", invoice_id=invoice_id, **extra), say("Done.")])
    run_agent(fake_client(model, max_retries=0), "Show me that invoice.", tools=[made],
              limits=Limits(max_turns=2))
    if len(model.requests) < 2:
        raise RuntimeError(_("the loop never answered the model's get_invoice call"))
    return model.requests[1]["messages"][-1]["content"][0]


def _shown(result: Any) -> str:
    return str(text_of(field_of(result, "content")))


def _own(make: Callable[..., Any]) -> tuple[bool, str]:
    result = _result(make, READER, "INV-7001")
    text = _shown(result)
    ok = (field_of(result, "is_error") is not True and "Lumbergh GmbH" in text
          and ("4310" in text.replace(",", "").replace("_", "").replace(" ", "")))
    return ok, _("the tool_result was {result!r}").format(result=result)[:300]


def _other(make: Callable[..., Any]) -> tuple[bool, str]:
    # asked plainly, and by a model fooled into naming the other tenant too
    for result in (_result(make, READER, "INV-8001"),
                   _result(make, READER, "INV-8001", tenant="hooli")):
        text = _shown(result)
        if field_of(result, "is_error") is not True or "Belson" in text or "98" in text:
            return False, _("the tool_result for another tenant's invoice was {result!r}").format(
                result=result)[:300]
    return True, ""


def _same_as_missing(make: Callable[..., Any]) -> tuple[bool, str]:
    other, missing = _result(make, READER, "INV-8001"), _result(make, READER, "INV-9999")
    said = (_shown(other).replace("INV-8001", "?"), _shown(missing).replace("INV-9999", "?"))
    same = (said[0] == said[1] and field_of(other, "is_error") is True
            and field_of(missing, "is_error") is True)
    return same, _("another tenant's: {other!r}; missing: {missing!r}").format(
        other=_shown(other), missing=_shown(missing))[:300]


def _scope(make: Callable[..., Any]) -> tuple[bool, str]:
    result = _result(make, NO_SCOPE, "INV-7001")
    ok = field_of(result, "is_error") is True and "Lumbergh" not in _shown(result)
    return ok, _("a user without invoices:read got {result!r}").format(result=result)[:300]


def _input(make: Callable[..., Any]) -> tuple[bool, str]:
    by_name, _definitions = as_tools([make(dict(READER), dict(INVOICES))])
    schema = next(iter(by_name.values())).input_schema if by_name else {}
    fields = sorted(schema.get("properties", {}))
    return fields == ["invoice_id"], _("the tool's input fields are {fields}").format(
        fields=fields)


def check_scoped_tool(make_get_invoice: Callable[..., Any]) -> Scorecard:
    card = Scorecard(f"check_scoped_tool({name_of(make_get_invoice)})")
    for name, check in zip(NAMES, (_own, _other, _same_as_missing, _scope, _input), strict=True):
        try:
            passed, hint = check(make_get_invoice)
        except Exception as e:
            card.append(Check(name, False, raised(e)))
            continue
        card.append(verdict(name, passed, hint))
    return card
