"""Lesson 13's pins: a hash of each reviewed tool definition, compared on every listing.

A pin covers the whole definition the model is given, `name`, `description` and
`input_schema`, as canonical JSON: a server that later changes any of it (a new
instruction in the description, one more argument in the schema: the "rug pull") no
longer matches, and its tool is refused until someone reviews it again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.tools import Tool
from ..i18n import _


def definition_of(t: Tool | Mapping[str, Any]) -> dict[str, Any]:
    """What the model is given of a tool: its name, description and input schema (a
    looplab `Tool`, or a listed MCP tool with `inputSchema`)."""
    if isinstance(t, Tool):
        return {"name": t.name, "description": t.description, "input_schema": t.input_schema}
    schema = t.get("input_schema", t.get("inputSchema"))
    return {"name": t["name"], "description": t.get("description", ""), "input_schema": schema}


def pin(t: Tool | Mapping[str, Any]) -> str:
    """The sha256 of a tool's whole definition, as canonical JSON (64 hex digits)."""
    text = json.dumps(definition_of(t), sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def pinned(tools: Iterable[Tool], pins: Mapping[str, str]) -> tuple[list[Tool], list[str]]:
    """The tools whose definition matches its pin, and why each other one was refused."""
    allowed, refused = [], []
    for t in tools:
        expected, now = pins.get(t.name), pin(t)
        if expected is None:
            refused.append(_("{name}: not reviewed (no pin)").format(name=t.name))
        elif expected != now:
            refused.append(_("{name}: its definition changed since it was reviewed (pinned "
                             "{pinned}…, now {now}…): review it again").format(
                               name=t.name, pinned=expected[:12], now=now[:12]))
        else:
            allowed.append(t)
    return allowed, refused
