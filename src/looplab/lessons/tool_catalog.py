"""Lesson 20's catalog: 120 tools of a company's back office, the size of the tool list an
agent gets once every team's API is a tool (or every MCP server is connected).

Twelve areas times ten actions, each tool with a two-sentence description and a small
`input_schema`, as a team would write them; each answers with a line saying what it did.
`deferred(tool)` is the same tool defined with `defer_loading: true` (tool search).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..core.tools import Tool

AREAS = {
    "crm": ("customer", "customers of the sales team"),
    "billing": ("invoice", "invoices sent to customers"),
    "orders": ("order", "orders placed in the web shop"),
    "shipping": ("shipment", "parcels handed to the carrier"),
    "support": ("ticket", "support tickets opened by customers"),
    "inventory": ("item", "stock items in the warehouses"),
    "hr": ("employee", "employee records of the company"),
    "calendar": ("meeting", "meetings in the shared calendars"),
    "docs": ("document", "documents in the shared drive"),
    "analytics": ("report", "saved analytics reports"),
    "auth": ("user", "login accounts of the staff"),
    "payments": ("payment", "card payments and refunds"),
}
ACTIONS = {
    "get": "Fetch one {thing} by its id, with every field. Use it when you know the id.",
    "list": "List the newest {things}, 20 at a time. Use it to browse, not to find one.",
    "search": "Search the {things} by words in any field. Returns ids and a short summary.",
    "create": "Create a new {thing} from the fields given. Returns the new id.",
    "update": "Change fields of one {thing}. Only the fields given are changed.",
    "delete": "Delete one {thing} for good. Ask the user before you call it.",
    "export": "Export the {things} of a date range as a CSV file. Returns its link.",
    "archive": "Move one {thing} to the archive, where it is kept but hidden.",
    "restore": "Bring one archived {thing} back from the archive.",
    "count": "Count the {things} that match a filter. Returns a number.",
}


def _schema(action: str, thing: str) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "get": {f"{thing}_id": {"type": "string", "description": f"The {thing}'s id."}},
        "list": {"page": {"type": "integer", "description": "Page number, from 1."}},
        "search": {"query": {"type": "string", "description": "Words to look for."}},
        "create": {"fields": {"type": "object", "description": f"The new {thing}'s fields."}},
        "update": {f"{thing}_id": {"type": "string"},
                   "fields": {"type": "object", "description": "Fields to change."}},
        "export": {"start": {"type": "string", "description": "First day, YYYY-MM-DD."},
                   "end": {"type": "string", "description": "Last day, YYYY-MM-DD."}},
        "count": {"filter": {"type": "string", "description": "A filter, e.g. status=open."}},
    }.get(action, {f"{thing}_id": {"type": "string", "description": f"The {thing}'s id."}})
    return {"type": "object", "properties": fields, "required": list(fields)[:1]}


def _answer(name: str) -> Any:
    def run(**fields: Any) -> str:
        return f"{name}: done ({', '.join(f'{k}={v}' for k, v in sorted(fields.items()))})"

    return run


def catalog(n: int = 120) -> list[Tool]:
    """The first `n` tools of the catalog (at most 120), area by area."""
    tools = []
    for area, (thing, about) in AREAS.items():
        for action, text in ACTIONS.items():
            name = f"{area}_{action}"
            description = f"{text.format(thing=thing, things=thing + 's')} Works on the {about}."
            tools.append(Tool(name, description, _schema(action, thing), _answer(name)))
    return tools[:n]


@dataclasses.dataclass(frozen=True)
class DeferredTool(Tool):
    """A tool sent with `defer_loading: true`: its definition costs no prompt tokens and the
    model cannot call it until a tool search returns a `tool_reference` to it."""

    def definition(self) -> dict[str, Any]:
        return {**super().definition(), "defer_loading": True}


def deferred(t: Tool) -> Tool:
    """`t`, defined with `defer_loading: true`."""
    return DeferredTool(t.name, t.description, t.input_schema, t.fn, t.timeout_s, t.isolate)
