"""Wrong settings fail where they are written, with a message that says what is allowed,
not as an odd stop or a TypeError deep inside a run."""

from __future__ import annotations

import math
from typing import Any

import pytest

from looplab import Limits, tool
from looplab.core.tools import Tool


@pytest.mark.parametrize("name", ["timeout_s", "tool_timeout_s"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -1, "5", True, [5]],
                         ids=["nan", "inf", "-inf", "negative", "str", "bool", "list"])
def test_limits_seconds_must_be_finite_and_not_negative(name: str, value: Any) -> None:
    with pytest.raises(ValueError) as caught:
        Limits(**{name: value})
    assert str(caught.value) == (f"Limits({name}={value!r}): use a finite number of seconds "
                                 ">= 0, or None to switch the gate off")


@pytest.mark.parametrize("name", ["timeout_s", "tool_timeout_s"])
@pytest.mark.parametrize("value", [0, 0.5, 30, None])
def test_limits_seconds_at_the_bounds_are_accepted(name: str, value: Any) -> None:
    assert getattr(Limits(**{name: value}), name) == value


@pytest.mark.parametrize("value", [math.nan, math.inf, 0, -1, "5", True],
                         ids=["nan", "inf", "zero", "negative", "str", "bool"])
def test_tool_timeout_must_be_seconds_above_zero(value: Any) -> None:
    text = (f"@tool(timeout_s={value!r}): use a number of seconds > 0 (e.g. 5 or 0.5), or "
            "None for no limit")
    with pytest.raises(ValueError) as decorated:
        tool(timeout_s=value)
    with pytest.raises(ValueError) as built:
        Tool("t", "A tool.", {"type": "object"}, fn=print, timeout_s=value)
    assert str(decorated.value) == str(built.value) == text


def test_tool_isolation_is_thread_or_process() -> None:
    with pytest.raises(ValueError) as caught:
        Tool("t", "A tool.", {"type": "object"}, fn=print, isolate="subprocess")  # type: ignore[arg-type]
    assert str(caught.value) == '@tool(isolate=\'subprocess\'): use "thread" or "process"'
    with pytest.raises(ValueError, match="use \"thread\" or \"process\""):
        tool(isolate="fork")(ping)  # type: ignore[call-overload]
    assert tool(timeout_s=0.01, isolate="process")(ping).isolate == "process"


def ping(x: int) -> str:
    """Answer."""
    return "pong"
