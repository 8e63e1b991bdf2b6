"""A jsonschema `ValidationError` in the learner's language (`worded`): the common keywords
are worded through the catalog, jsonschema's own English as the template; any other keyword
keeps jsonschema's message. Duck-typed, so this package needs no jsonschema."""

from __future__ import annotations

from typing import Any

from ..i18n import worded


def schema_problem(e: Any) -> str:
    """A jsonschema `ValidationError` in the learner's language: the common keywords are
    worded through the catalog with jsonschema's own English as the template; any other
    keyword keeps jsonschema's message."""
    expected = e.validator_value
    if e.validator == "required" and isinstance(e.instance, dict):
        missing = e.message.removesuffix(" is a required property")
        return worded("{name} is a required property", name=missing)
    if e.validator == "additionalProperties" and isinstance(e.instance, dict):
        known = e.schema.get("properties", {}) if isinstance(e.schema, dict) else {}
        extra = [repr(k) for k in e.instance if k not in known]
        if len(extra) == 1:
            return worded("Additional properties are not allowed ({names} was unexpected)",
                          names=extra[0])
        if extra:
            return worded("Additional properties are not allowed ({names} were unexpected)",
                          names=", ".join(extra))
    if e.validator == "type":
        types = ", ".join(repr(t) for t in (expected if isinstance(expected, list)
                                            else [expected]))  # fmt: skip
        return worded("{value!r} is not of type {types}", value=e.instance, types=types)
    if e.validator == "enum":
        return worded("{value!r} is not one of {allowed!r}", value=e.instance,
                      allowed=expected)
    return str(e.message)
