"""The fake models: a fixed script (`ScriptedModel`) or a Python function (`FunctionModel`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anthropic

from ..errors import LooplabError
from ..i18n import _
from .budget import task_budget_remaining
from .ids import IdMaker
from .steps import Step, StepLike, as_step
from .usage import PromptCache


class ScriptError(LooplabError, anthropic.AnthropicError):
    """The script (not the learner's code) is wrong, or has run out.

    It subclasses `anthropic.AnthropicError`, so the SDK passes it through unchanged and
    does not retry it: it reaches the caller of `client.messages.create(...)` as is.
    """


class ScriptExhausted(ScriptError):
    """A request came after the last scripted step."""


@dataclass
class Request:
    """One parsed request body, as a model function sees it."""

    body: dict[str, Any]
    number: int
    """1-based position of this body in `model.requests`."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list(self.body.get("tools") or [])

    @property
    def tool_names(self) -> list[str]:
        return [str(tool.get("name")) for tool in self.tools if isinstance(tool, Mapping)]

    @property
    def system(self) -> Any:
        return self.body.get("system")

    @property
    def model(self) -> str:
        return str(self.body.get("model"))

    @property
    def max_tokens(self) -> int:
        return int(self.body.get("max_tokens") or 0)

    @property
    def task_budget_remaining(self) -> int | None:
        """The task budget's countdown the live model sees (`output_config.task_budget`),
        or None without one; see `looplab.fake.budget`."""
        return task_budget_remaining(self.body)

    @property
    def turn(self) -> int:
        """How many assistant messages the history already holds (0 on the first request)."""
        roles = [m.get("role") for m in self.messages if isinstance(m, Mapping)]
        return roles.count("assistant")

    def last_tool_results(self) -> dict[str, Any]:
        """`{tool_use_id: content}` of the `tool_result` blocks in the last message."""
        return {block["tool_use_id"]: block.get("content") for block in self._last_results()}

    def last_results_by_name(self) -> dict[str, Any]:
        """`{tool name: content}` of the last message's results (a later call wins)."""
        names = {}
        for message in self.messages[:-1]:
            for block in _blocks(message):
                if block.get("type") == "tool_use":
                    names[block.get("id")] = block.get("name")
        return {
            str(names.get(block["tool_use_id"], block["tool_use_id"])): block.get("content")
            for block in self._last_results()
        }

    def last_user_text(self) -> str:
        """The text blocks of the last message, joined by newlines ("" if none)."""
        if not self.messages:
            return ""
        texts = [b.get("text", "") for b in _blocks(self.messages[-1]) if b.get("type") == "text"]
        return "\n".join(str(text) for text in texts)

    def _last_results(self) -> list[dict[str, Any]]:
        if not self.messages:
            return []
        return [
            block
            for block in _blocks(self.messages[-1])
            if block.get("type") == "tool_result" and "tool_use_id" in block
        ]


def _blocks(message: Any) -> list[dict[str, Any]]:
    if not isinstance(message, Mapping):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


@dataclass
class ServerMemory:
    """What the fake server remembers for one model: ids, signatures, the prompt cache."""

    ids: IdMaker = field(default_factory=IdMaker)
    cache: PromptCache = field(default_factory=PromptCache)
    thinking: dict[str, str] = field(default_factory=dict)
    """signature -> thinking text of every `thinking` block sent."""
    thinking_by_tool_use: dict[str, list[tuple[int, str, str]]] = field(default_factory=dict)
    credits: dict[str, tuple[str, str]] = field(default_factory=dict)
    """fallback_credit_token -> (the refused model, the refused request's render fields)."""
    """tool_use id -> (position, signature, thinking) of each `thinking` block of the reply
    that made that call."""


class FakeModel:
    """What `fake_client` talks to. Subclasses decide the step for each request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        """Every request body sent to `/v1/messages`: each HTTP attempt, so SDK retries
        and requests the fake rejected with a 400 are in here too. `count_tokens`
        requests are not."""
        self.memory = ServerMemory()

    def next_step(self, body: dict[str, Any]) -> Step:
        """The step for a request that passed the API's checks."""
        return as_step(self.respond(Request(body, len(self.requests))))

    def respond(self, request: Request) -> StepLike:
        raise NotImplementedError

    def step_label(self, number: int) -> str:
        """How error messages name the step that answered request `number`."""
        return _("the reply to request {number}").format(number=number)


class ScriptedModel(FakeModel):
    """Plays `steps` in order, one per request that passes the API's checks.

    A step is a reply (`say`, `call`, `reply`, `truncate`, `refuse`, `pause`, …), a list
    of blocks, or a fault (`overloaded`, `rate_limited`, `api_error`). A fault uses up one
    step per HTTP attempt, so `[overloaded(), say("hi")]` succeeds after one SDK retry.
    Requests rejected with a 400 (history mistakes) use up no step.
    """

    def __init__(self, steps: Iterable[StepLike]) -> None:
        super().__init__()
        self.steps: list[Step] = [as_step(step) for step in steps]
        self.position = 0
        """How many steps have been played."""

    def respond(self, request: Request) -> Step:
        if self.position >= len(self.steps):
            raise ScriptExhausted(
                _("request {number} has no scripted step: the script has {steps} step(s) and "
                  "all were used. The last message was {last}. Add a step to the script, or "
                  "make the loop stop sooner (check stop_reason).").format(
                    number=request.number, steps=len(self.steps),
                    last=_describe_last(request.messages))
            )  # fmt: skip
        step = self.steps[self.position]
        self.position += 1
        return step

    def step_label(self, number: int) -> str:
        return _("script step {position} (the reply to request {number})").format(
            position=self.position, number=number)

    @property
    def remaining(self) -> int:
        return len(self.steps) - self.position

    def assert_complete(self) -> None:
        """Raise `AssertionError` unless every step was played."""
        if self.remaining:
            raise AssertionError(
                _("the script has {remaining} unplayed step(s) of {steps}: the loop stopped "
                  "after {played} step(s).").format(
                    remaining=self.remaining, steps=len(self.steps), played=self.position)
            )  # fmt: skip

    def __repr__(self) -> str:
        return f"ScriptedModel(steps={len(self.steps)}, played={self.position})"


class FunctionModel(FakeModel):
    """Asks `fn(request)` for each step, so the model can react to real tool results.

    `request` is a `Request`: `.messages`, `.tools`, `.tool_names`, `.system`, `.model`,
    `.max_tokens`, `.turn`, `.body`, `.number`, and the helpers `.last_tool_results()`
    (`{tool_use_id: content}`), `.last_results_by_name()` (`{tool name: content}`) and
    `.last_user_text()`. `fn` returns anything a script step can be.
    """

    def __init__(self, fn: Callable[[Request], StepLike]) -> None:
        super().__init__()
        self.fn = fn

    def respond(self, request: Request) -> StepLike:
        return self.fn(request)

    def __repr__(self) -> str:
        name = getattr(self.fn, "__name__", repr(self.fn))
        return f"FunctionModel({name})"


def _describe_last(messages: list[Any]) -> str:
    if not messages:
        return _("(no messages)")
    last = messages[-1]
    role = last.get("role") if isinstance(last, Mapping) else "?"
    content = last.get("content") if isinstance(last, Mapping) else last
    text = json.dumps(content, ensure_ascii=False, default=str)
    if len(text) > 200:
        text = text[:197] + "..."
    return _("message {n} ({role}): {text}").format(n=len(messages) - 1, role=role, text=text)
