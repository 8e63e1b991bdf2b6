"""looplab: an LLM agent is a model, some tools and a `while` loop.

The lessons in `notebooks/` import everything from here. The package has layers that
import in one direction only (each imports only those above it):

    errors.py, i18n.py   looplab's errors and warnings; the learner's language
    running/   running one tool call: here, in a thread with a timeout, or in a process
    history/   the message-history rules with the API's texts, close_dangling
    core/      the loop a student reads beside the article: loop, limits and gates,
               results, tools
    tokens.py  token arithmetic (S + (n-1)Δ)
    fake/      the offline Messages API          views/   HTML, widgets, plots, quiz
    lessons/   the demo agent, the article's loop; live/ record and replay runs
    exercises/ the lessons' checkers;  grading/ looplab-grade, which uses them

`connect.py` (live API or fake) and this file sit on top. Only the core is imported at
once; the fake, the views, the lessons and `live/` load on first use, so `import looplab`
pulls in neither ipywidgets nor matplotlib, and `import looplab.core.loop` not even the
fake.
"""

from __future__ import annotations

import sys
import warnings
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from . import tokens
from .core.limits import Limits
from .core.loop import STOP_REASONS, AgentRun, configured_model, run_agent
from .core.result import STATUSES, GateState, RunResult, ToolCall, Turn
from .core.tools import Tool, ToolError, tool
from .errors import LooplabError, LooplabWarning
from .history.dangling import close_dangling
from .history.rules import RULES, HistoryError, Violation, assert_valid, check_history, first_error
from .i18n import set_language
from .running.inline import TimeoutsNotEnforcedWarning

if TYPE_CHECKING:  # what the lazy names below are, for type checkers and editors
    MODEL: str
    from .connect import client
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
    from .live import Cassette, ReplayMismatch, record, replay

try:
    __version__ = version("looplab")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

# name -> (module, attribute or None for the module itself), imported on first use
_LAZY: dict[str, tuple[str, str | None]] = {
    "record": ("looplab.live", "record"),
    "replay": ("looplab.live", "replay"),
    "Cassette": ("looplab.live", "Cassette"),
    "ReplayMismatch": ("looplab.live", "ReplayMismatch"),
    "client": ("looplab.connect", "client"),
    "async_fake_client": ("looplab.fake", "async_fake_client"),
    "FakeClock": ("looplab.fake", "FakeClock"),
    "FunctionModel": ("looplab.fake", "FunctionModel"),
    "ScriptedModel": ("looplab.fake", "ScriptedModel"),
    "api_error": ("looplab.fake", "api_error"),
    "call": ("looplab.fake", "call"),
    "fake_client": ("looplab.fake", "fake_client"),
    "overloaded": ("looplab.fake", "overloaded"),
    "pause": ("looplab.fake", "pause"),
    "rate_limited": ("looplab.fake", "rate_limited"),
    "refuse": ("looplab.fake", "refuse"),
    "reply": ("looplab.fake", "reply"),
    "say": ("looplab.fake", "say"),
    "think": ("looplab.fake", "think"),
    "truncate": ("looplab.fake", "truncate"),
    "plots": ("looplab.views.plots", None),
    "widgets": ("looplab.views.widgets", None),
    "quiz": ("looplab.views.quiz", None),
    "demo": ("looplab.lessons.demo", None),
    "exercises": ("looplab.exercises", None),
    "Quiz": ("looplab.views.quiz", "Quiz"),
    "LiveRun": ("looplab.views.widgets", "LiveRun"),
    "TurnViewer": ("looplab.views.widgets", "TurnViewer"),
    "plot_cumulative_input": ("looplab.views.plots", "plot_cumulative_input"),
    "token_explorer": ("looplab.views.explorer", "token_explorer"),
}


def _run_html(result: RunResult) -> str:
    from .views.html import render_run_html  # the core does not import the views

    return render_run_html(result)


def _show_runs_as_html() -> None:
    """In a notebook, display a `RunResult` as its HTML view (the core cannot, by design)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        shell.display_formatter.formatters["text/html"].for_type(RunResult, _run_html)


_show_runs_as_html()


def _say_warnings_plainly() -> None:
    """Print the warning looplab gives a learner in the browser (tool timeouts cannot be
    enforced there) as its sentence, not as Python prints a warning, after the place in
    the notebook's generated code (`<ipython-input-4-…>:24: TimeoutsNotEnforcedWarning:`)
    and with that line of code below it. Any other warning is printed as before."""
    original = warnings.formatwarning
    if getattr(original, "looplab", False):  # a second import (importlib.reload)
        return

    def formatwarning(message: Warning | str, category: type[Warning], filename: str,
                      lineno: int, line: str | None = None) -> str:
        if issubclass(category, TimeoutsNotEnforcedWarning):
            return f"looplab: {message}\n"
        return original(message, category, filename, lineno, line)

    formatwarning.looplab = True  # type: ignore[attr-defined]
    warnings.formatwarning = formatwarning


_say_warnings_plainly()


def __getattr__(name: str) -> Any:
    if name == "MODEL":  # read when asked, so setting LOOPLAB_MODEL later still counts
        return configured_model()
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
    "Cassette",
    "FakeClock",
    "FunctionModel",
    "GateState",
    "HistoryError",
    "Limits",
    "LooplabError",
    "LooplabWarning",
    "ReplayMismatch",
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
    "tokens",
    "fake_client",
    "first_error",
    "overloaded",
    "pause",
    "rate_limited",
    "refuse",
    "record",
    "replay",
    "reply",
    "run_agent",
    "say",
    "set_language",
    "think",
    "tool",
    "truncate",
]
