"""The scripted world lesson 11's checker plays each exhibit in.

A `World` holds one fake model (a script), the real SDK client talking to it, and tools
that log every call they run, so a check can see what the learner's loop really did.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anthropic

from ..core.tools import Tool, tool
from ..fake import ScriptedModel, ScriptExhausted, fake_client
from ..fake.steps import StepLike
from ..history.rules import check_history
from ..i18n import _

WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search"}
"""A server tool: the API runs it, the loop only declares it."""

FINAL = "test_login_lockout fails: the lockout check in login.py is off by one."
CI_LOG = "\n".join(f"09:12:{i % 60:02d} INFO build: step {i} ok" for i in range(1, 401))
"""What `read_ci_log` returns: about 3,300 tokens, so the request after it is large."""
BUDGET = 1_500
"""Exhibit 6's token budget: request 1 fits in it, request 2 (after the CI log) does not."""


def one_line(e: BaseException) -> str:
    """An exception as one line: `KeyError: 'toolu_01'`."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {text[:200]}" if text else type(e).__name__


def field_of(block: Any, key: str) -> Any:
    """A field of a block that may be a dict or an SDK object."""
    return block.get(key) if isinstance(block, Mapping) else getattr(block, key, None)


def blocks_of(message: Any) -> list[Any]:
    """A message's content blocks (a string is one text block)."""
    content = field_of(message, "content")
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


def tool_results(messages: list[Any]) -> list[Any]:
    """Every tool_result block of a history."""
    return [b for m in messages for b in blocks_of(m) if field_of(b, "type") == "tool_result"]


def last_text(messages: list[Any]) -> Any:
    """The text of the last message, when it is one text block."""
    texts = [field_of(b, "text") for b in blocks_of(messages[-1])] if messages else []
    return texts[0] if len(texts) == 1 else None


def api_error(messages: Any) -> str | None:
    """The first rule a history breaks that the API answers with a 400, as a hint line."""
    found = [v for v in check_history(messages) if v.severity == "error"]
    return f"{found[0].message} ({found[0].hint})" if found else None


@dataclass
class World:
    """One scripted situation: the fake model and its client, and what the tools did."""

    steps: list[StepLike]
    ran: list[tuple[str, str]] = field(default_factory=list)
    raised: list[BaseException] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.model = ScriptedModel(self.steps)
        self.client = fake_client(self.model, max_retries=0)
        self.tools = self._tools()

    def _tools(self) -> list[Tool]:
        def run_tests(module: str) -> str:
            """Run the unit tests of one module and return pytest's summary line."""
            self.ran.append(("run_tests", module))
            if module != "login":
                error = ValueError(f"no tests for module {module!r}; modules with tests: login")
                self.raised.append(error)
                raise error
            return "FAILED tests/test_login.py::test_login_lockout\n1 failed, 2 passed"

        def read_file(path: str) -> str:
            """Read a text file of the repository and return its content."""
            self.ran.append(("read_file", path))
            return f"# {path}\nMAX_FAILURES = 3\n"

        def read_ci_log() -> str:
            """Read the log of the last CI build."""
            self.ran.append(("read_ci_log", ""))
            return CI_LOG

        return [tool(run_tests), tool(read_file), tool(read_ci_log)]

    @property
    def sent(self) -> int:
        return len(self.model.requests)

    def explain(self, e: BaseException) -> str:
        """A hint for an exception that escaped the learner's loop."""
        if isinstance(e, ScriptExhausted):
            return _("the loop sent request {n} after the scenario's last reply; it should "
                     "have stopped before").format(n=self.sent)
        if isinstance(e, anthropic.BadRequestError):  # from create or from count_tokens
            body = e.body.get("error") if isinstance(e.body, dict) else None
            said = body.get("message") if isinstance(body, dict) else None
            return _("the API answered 400: {problem}").format(
                problem=str(said).rstrip(".") if said else one_line(e))
        if any(e is r for r in self.raised):
            return _("the tool's {error} escaped the loop: send it back as a tool_result "
                     "with is_error: true").format(error=one_line(e))
        if not self.sent:
            return one_line(e)
        return _("{error} after {n} request(s)").format(error=one_line(e), n=self.sent)
