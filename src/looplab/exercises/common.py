"""What the checkers share: one-line exception texts, block fields, and a scripted `World`.

A `World` is one scripted situation: a fake model behind a real SDK client, a fake clock,
and two tools (`read_file`, `run_tests`) over a small in-memory repository that record
every call that really ran.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anthropic

from ..core.loop import MODEL
from ..core.tools import Tool, tool
from ..fake import FakeClock, ScriptedModel, ScriptExhausted, fake_client
from ..fake.steps import StepLike
from ..history.rules import check_history
from ..i18n import _
from .scorecard import Check, verdict

FILES = {
    "README.md": "# shop\nA small web shop. Run the tests with pytest.\n",
    "src/login.py": "def login(user, password):\n    ...  # the lockout counter never resets\n",
    "logs/test_login.log": "FAILED tests/test_login.py::test_login_lockout - assert 5 == 0\n",
    "tests/test_login.py": "def test_login_lockout():\n    ...\n",
    "src/session.py": "SESSION_TTL_S = 3600\n",
    "src/config.py": "MAX_ATTEMPTS = 5\n",
}
TASK = "Run the login tests; if any fail, find out why."


def raised(e: BaseException) -> str:
    """An exception as one line: `KeyError: 'toolu_01'`."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def numbers_check(name: str, compute: Callable[[], Any],
                  want: Mapping[str, float | None]) -> Check:  # fmt: skip
    """One check of a function that returns named numbers: `compute()` calls it; a key of
    `want` it lacks or gets wrong fails the check (`None` wants `None`; a bool is not a
    number), and so does a result that is not a dict, or an exception."""
    def same(value: Any, expected: float | None) -> bool:
        if expected is None:
            return value is None
        return (isinstance(value, (int, float)) and not isinstance(value, bool)
                and math.isclose(value, expected, rel_tol=1e-9))

    try:
        got = compute()
    except Exception as e:
        return Check(name, False, raised(e))
    wrong = ([key for key in want if not same(got.get(key), want[key])]
             if isinstance(got, dict) else list(want))
    return verdict(name, not wrong, _("wrong: {keys} (got {got!r})").format(
        keys=", ".join(wrong), got=got)[:300])


def name_of(fn: Any) -> str:
    return str(getattr(fn, "__name__", type(fn).__name__))


def field_of(block: Any, key: str, default: Any = None) -> Any:
    """A field of a block that may be a dict or an SDK object."""
    if isinstance(block, Mapping):
        return block.get(key, default)
    return getattr(block, key, default)


def text_of(content: Any) -> Any:
    """A tool_result's content as text when it is text (a string or text blocks)."""
    if isinstance(content, list) and all(field_of(b, "type") == "text" for b in content):
        return "".join(str(field_of(b, "text", "")) for b in content)
    return content


def create(client: anthropic.Anthropic, body: dict[str, Any]) -> Any:
    """`client.messages.create(**body)` for a request built as a plain dict."""
    return client.messages.create(**body)


def first_problem(messages: Any, tools: Any = None) -> str | None:
    """The first rule a history breaks (errors before warnings), as a hint line."""
    found = sorted(check_history(messages, tools=tools), key=lambda v: v.severity != "error")
    if not found:
        return None
    v = found[0]
    return f"{v.message} ({v.hint})"


@dataclass
class World:
    """One scripted situation: the fake model, its client and clock, and the tools' log."""

    steps: list[StepLike]
    clock: FakeClock = field(default_factory=FakeClock)
    ran: list[tuple[str, str]] = field(default_factory=list)
    """(tool name, argument) of every tool call that really ran."""
    raised: list[BaseException] = field(default_factory=list)
    """Exceptions the tools raised (so one escaping the loop is recognised)."""

    def __post_init__(self) -> None:
        self.model = ScriptedModel(self.steps)
        self.client = fake_client(self.model, clock=self.clock, max_retries=0)
        self.tools = self._make_tools()
        self.definitions = [t.definition() for t in self.tools]

    def _make_tools(self) -> list[Tool]:
        def read_file(path: str) -> str:
            """Read a text file of the repository and return its content."""
            self.ran.append(("read_file", path))
            if path not in FILES:
                self._fail(FileNotFoundError(f"no such file: {path!r}"))
            return FILES[path]

        def run_tests(module: str) -> str:
            """Run the unit tests of one module and return pytest's summary line."""
            self.ran.append(("run_tests", module))
            if module != "login":
                self._fail(ValueError(f"no tests for module {module!r}; modules with tests: login"))
            return "1 failed, 2 passed"

        return [tool(read_file), tool(run_tests)]

    def send(self, messages: list[Any]) -> Any:
        """One request with these messages and the scenario's tools."""
        body: dict[str, Any] = {
            "model": MODEL, "max_tokens": 1024, "tools": self.definitions, "messages": messages
        }
        return create(self.client, body)

    def _fail(self, e: BaseException) -> None:
        self.raised.append(e)
        raise e

    def explain(self, e: BaseException, expect: str = "") -> str:
        """A hint for an exception that escaped the learner's function."""
        if isinstance(e, ScriptExhausted):
            status = expect[:-1] + " <tool name>" if expect.endswith("*") else expect
            if status:
                return _("the loop sent request {n} after the scenario's last reply; it should "
                         "have returned {status!r} before").format(
                    n=len(self.model.requests), status=status)
            return _("the loop sent request {n} after the scenario's last reply; it should "
                     "have stopped before").format(n=len(self.model.requests))
        if isinstance(e, anthropic.BadRequestError):
            sent = self.model.requests[-1].get("messages") if self.model.requests else None
            problem = first_problem(sent, self.definitions)
            return _("the API answered 400: {problem}").format(problem=problem or raised(e))
        if any(e is r for r in self.raised):
            return _("the tool's {error} escaped the loop and ended it: the model never got "
                     "a tool_result for that call").format(error=raised(e))
        return raised(e)
