"""Lesson 20's checker: a right `make_get_invoice` passes, a stub is one line, and each
plausible wrong answer fails the check that names it (the tool run by the real loop)."""

from __future__ import annotations

from typing import Any

from scorecards import failed, stub

from looplab import ToolError
from looplab.exercises import check_scoped_tool

OWN = "your tenant's invoice comes back (id, customer, amount)"
OTHER = "another tenant's invoice is refused by the tool (is_error), none of it shown"
SAME = "another tenant's invoice gets the same answer as one that does not exist"
SCOPE = "without the invoices:read scope even your own invoice is refused"
INPUT = "the tool's only input is the invoice id: the model cannot name a tenant"


def make_get_invoice(user: dict[str, Any], invoices: dict[str, Any], *, scope: bool = True,
                     tenant: bool = True, tell: bool = False) -> Any:
    def get_invoice(invoice_id: str) -> str:
        """Look up one of your company's invoices by its id (INV-…)."""
        invoice = invoices.get(invoice_id)
        if scope and "invoices:read" not in user["scopes"]:
            raise ToolError("you may not read invoices")
        if invoice is None or (tenant and invoice["tenant"] != user["tenant"]):
            raise ToolError(f"no invoice {invoice_id}")
        if tell and invoice["tenant"] != user["tenant"]:
            raise ToolError(f"{invoice_id} belongs to another tenant")
        return f"{invoice_id}: {invoice['customer']}, {invoice['amount']:,} EUR"

    return get_invoice


def test_the_reference_make_get_invoice_passes() -> None:
    card = check_scoped_tool(make_get_invoice)
    assert card.passed and len(card) == 5, str(card)


def test_a_stub_make_get_invoice_is_one_line_not_written_yet() -> None:
    card = check_scoped_tool(stub)
    assert len(card) == 5 and str(card).splitlines()[1:] == ["✗ not written yet: write it"]


def test_a_tool_that_checks_no_tenant_or_no_scope_fails_those() -> None:
    assert failed(check_scoped_tool(lambda u, i: make_get_invoice(u, i, tenant=False))) == [
        OTHER, SAME]
    assert failed(check_scoped_tool(lambda u, i: make_get_invoice(u, i, scope=False))) == [SCOPE]


def test_a_refusal_that_says_the_invoice_is_another_tenants_leaks_that_it_exists() -> None:
    card = check_scoped_tool(lambda u, i: make_get_invoice(u, i, tenant=False, tell=True))
    assert failed(card) == [SAME]


def test_a_tenant_the_model_names_fails_even_when_the_default_is_the_users() -> None:
    def trusting(user: dict[str, Any], invoices: dict[str, Any]) -> Any:
        def get_invoice(invoice_id: str, tenant: str = "") -> str:
            """Look up an invoice of a tenant (yours when none is named)."""
            invoice = invoices.get(invoice_id)
            if "invoices:read" not in user["scopes"]:
                raise ToolError("you may not read invoices")
            if invoice is None or invoice["tenant"] != (tenant or user["tenant"]):
                raise ToolError(f"no invoice {invoice_id}")
            return f"{invoice_id}: {invoice['customer']}, {invoice['amount']:,} EUR"

        return get_invoice

    assert failed(check_scoped_tool(trusting)) == [OTHER, INPUT]
