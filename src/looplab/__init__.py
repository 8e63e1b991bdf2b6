"""looplab: an LLM agent is a model, some tools and a `while` loop.

The lessons in `notebooks/` import everything from here. Widgets and plots are loaded
on first use, so `import looplab` pulls in neither ipywidgets nor matplotlib.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from .connect import MODEL, client
from .dangling import close_dangling
from .fake import (
    FakeClock,
    FunctionModel,
    ScriptedModel,
    api_error,
    async_fake_client,
    call,
    fake_client,
    overloaded,
    pause,
    rate_limited,
    refuse,
    reply,
    say,
    think,
    truncate,
)
from .limits import Limits
from .loop import STOP_REASONS, AgentRun, run_agent
from .result import STATUSES, GateState, RunResult, ToolCall, Turn
from .rules import RULES, HistoryError, Violation, assert_valid, check_history, first_error
from .tools import Tool, ToolError, tool

try:
    __version__ = version("looplab")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

# name -> (module, attribute or None for the module itself), imported on first use
_LAZY: dict[str, tuple[str, str | None]] = {
    "plots": ("looplab.plots", None),
    "widgets": ("looplab.widgets", None),
    "tokens": ("looplab.tokens", None),
    "exercises": ("looplab.exercises", None),
    "quiz": ("looplab.quiz", None),
    "Quiz": ("looplab.quiz", "Quiz"),
    "LiveRun": ("looplab.widgets", "LiveRun"),
    "TurnViewer": ("looplab.widgets", "TurnViewer"),
    "plot_cumulative_input": ("looplab.plots", "plot_cumulative_input"),
    "token_explorer": ("looplab.widgets", "token_explorer"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attribute = _LAZY[name]
        loaded = import_module(module)
        return loaded if attribute is None else getattr(loaded, attribute)
    raise AttributeError(f"module 'looplab' has no attribute {name!r}")


__all__ = [
    "MODEL",
    "RULES",
    "STATUSES",
    "STOP_REASONS",
    "AgentRun",
    "FakeClock",
    "FunctionModel",
    "GateState",
    "HistoryError",
    "Limits",
    "RunResult",
    "ScriptedModel",
    "Tool",
    "ToolCall",
    "ToolError",
    "Turn",
    "Violation",
    "__version__",
    "api_error",
    "assert_valid",
    "call",
    "check_history",
    "client",
    "close_dangling",
    "async_fake_client",
    "fake_client",
    "first_error",
    "overloaded",
    "pause",
    "rate_limited",
    "refuse",
    "reply",
    "run_agent",
    "say",
    "think",
    "tool",
    "truncate",
]
