"""The agent loop: send `messages`, fork on `stop_reason`, run the tools, repeat, until a gate.

    result = run_agent(client, "Run the login tests; if any fail, find out why.",
                       tools=demo_tools())
    print(result)            # "done", or "stopped: max_turns", ...

Read it next to the article's `run_agent`: this file is that loop, top-down. `run_agent`
steps an `AgentRun`; one `step()` is one turn (one request to the model), and its parts come
in the article's order: gates -> request -> append the reply whole -> fork on `stop_reason`
-> repeat check -> tools -> one user message of results. Each stop is data in the
`RunResult`, never an exception; tool and API failures never raise.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

import anthropic

from ..history.dangling import close_dangling
from ..i18n import Message
from ..running.calls import run_calls
from ..running.output import describe
from .gates import GATES, Repeats, check_repeats, closed_gate
from .limits import Limits
from .messages import assistant_content, first_messages, results_message
from .result import GateState, RunResult, ToolCall, Turn
from .tools import Tool, as_tools

MODEL = "claude-opus-5-5"
"""The article's model name: what a run sends unless `LOOPLAB_MODEL` names another."""


def configured_model(environ: Mapping[str, str] | None = None) -> str:
    """`LOOPLAB_MODEL` when it is set and not blank, else `MODEL`. Read at each call."""
    env = os.environ if environ is None else environ
    return env.get("LOOPLAB_MODEL", "").strip() or MODEL

Action = Literal["done", "run_tools", "resume", "stop"]

STOP_REASONS: dict[str, Action] = {
    "end_turn": "done",  # the only normal finish
    "tool_use": "run_tools",
    # The server has not finished the turn (a server-tool loop hit its limit, or it
    # compacted the context): send the turn back unchanged, run nothing.
    "pause_turn": "resume",
    "compaction": "resume",
    # Terminal and not a success. The run's status is the stop_reason itself. A tool_use
    # cut off by max_tokens is never run: its input may be incomplete.
    "max_tokens": "stop",
    "stop_sequence": "stop",
    "refusal": "stop",
    "model_context_window_exceeded": "stop",
}
"""What the loop does for each `stop_reason`. Any value not listed stops the run with
status `unknown_stop_reason`. A test checks this covers the SDK's `StopReason` literal."""

USAGE_FIELDS = (
    "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"
)


def run_agent(
    client: anthropic.Anthropic,
    task_or_messages: str | Sequence[dict[str, Any]],
    *,
    tools: Iterable[Tool | Callable[..., Any] | dict[str, Any]] = (),
    limits: Limits = Limits(),  # noqa: B008 (frozen, so one shared default is safe)
    **options: Any,
) -> RunResult:
    """Run the loop to the end. `options` go to `AgentRun`: `model` (default: the
    configured one, `LOOPLAB_MODEL` or `MODEL`), `system`, `max_tokens`, `clock`, `on_turn`."""
    run = AgentRun(client, task_or_messages, tools=tools, limits=limits, **options)
    while run.result is None:
        run.step()
    return run.result


class AgentRun:
    """One run of the loop, advanced one turn (one request to the model) at a time.

    `finished` turns true when the run stops; `result` is then its `RunResult`. Passing a
    previous `result.messages` as `task_or_messages` continues that run: calls it left
    unanswered are first answered by `close_dangling`.
    """

    def step(self) -> Turn | None:
        """One turn. Returns the new `Turn`, or `None` if a gate allowed no request.

        Ctrl-C (`KeyboardInterrupt`) during the request or the tools ends the run with
        status `interrupted`; calls left unanswered are closed, so the run can go on.
        """
        if self.status is not None:
            raise RuntimeError(f"this run has finished ({self.status}); to go on, pass "
                               "result.messages to run_agent or to a new AgentRun")
        try:
            return self._turn()
        except KeyboardInterrupt:
            self.messages[:] = close_dangling(self.messages, "the run was interrupted")
            self._finish("interrupted", "KeyboardInterrupt")
            return None

    def _turn(self) -> Turn | None:
        # 1. gates: may another request be sent?
        if self._stop_at_gate(preflight=self.limits.count_tokens):
            return None
        # 2. one request, exactly as on the wire
        sent = len(self.messages)
        try:
            response = self.client.messages.create(**self.request())
        except anthropic.APIError as e:  # raised after the SDK's own retries
            self._finish("api_error", describe(e), error=e)
            return None
        # 3. the assistant's content, appended whole
        turn = self._append_reply(response, sent)
        # 4. the fork on stop_reason; 5-7 (repeat check, tools, results) in _run_tools
        action = STOP_REASONS.get(str(response.stop_reason))
        if action == "run_tools":
            self._run_tools(turn)
        elif action == "done":
            self._finish("done")
        elif action == "stop":
            self._finish(str(response.stop_reason))
        elif action is None:
            self._finish("unknown_stop_reason", f"stop_reason {response.stop_reason!r}")
        # "resume": nothing to add; the next request sends this turn back as it is
        self._close_turn(turn)
        return turn

    def _append_reply(self, response: Any, sent: int) -> Turn:
        content = assistant_content(response)
        if content:  # an empty reply (e.g. a refusal before any output) is not kept: an
            # empty message anywhere but last makes the next request a 400
            self.messages.append({"role": "assistant", "content": content})
        turn = self._record(response, content, sent)
        turn.tool_calls = [ToolCall(b["id"], b["name"], b.get("input"))
                           for b in content if b.get("type") == "tool_use"]
        return turn

    def _run_tools(self, turn: Turn) -> None:
        calls = turn.tool_calls
        if not calls:  # only server tools: the next request lets the server finish them
            return
        # 5. the repeat check, before anything runs
        stop = check_repeats(self.repeats, self.limits, calls)
        if stop is not None:
            self._stop_repeating(calls, stop)
            return
        # 6. the tools; a failing tool becomes an is_error result, never an exception
        run_calls([c for c in calls if c.outcome != "blocked"], self.tools,
                  timeout_s=self.limits.tool_timeout_s)
        # 7. every result in one user message, in call order, and nothing but tool_result
        self.messages.append(results_message(calls))
        if any(c.outcome == "interrupted" for c in calls):
            self._finish("interrupted", Message("a tool raised KeyboardInterrupt"))

    def _stop_repeating(self, calls: list[ToolCall], why: str) -> None:
        if self.limits.on_repeat == "block_then_stop":  # answer every call, run none
            # `+` keeps the English text: what the loop sends the model is not translated
            self.messages[:] = close_dangling(self.messages, why + "; the run stopped")
            for c, r in zip(calls, self.messages[-1]["content"], strict=True):
                c.answer(r["content"], is_error=True, outcome="not_run")
        self._finish("repeated_call", why)

    def _close_turn(self, turn: Turn) -> None:
        turn.elapsed_s = self.clock() - self.started
        if self.status is None:
            self._stop_at_gate()  # so `finished` is true as soon as no request may follow
        turn.gates = self.gates()
        if self.on_turn is not None:
            self.on_turn(turn)

    # -- setting up, and what a run knows about itself -----------------------------------

    def __init__(
        self,
        client: anthropic.Anthropic,
        task_or_messages: str | Sequence[dict[str, Any]],
        *,
        tools: Iterable[Tool | Callable[..., Any] | dict[str, Any]] = (),
        limits: Limits = Limits(),  # noqa: B008 (frozen, so one shared default is safe)
        model: str | None = None,
        system: str | list[dict[str, Any]] | None = None,
        max_tokens: int = 4096,
        clock: Callable[[], float] = time.monotonic,
        on_turn: Callable[[Turn], object] | None = None,
    ) -> None:
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a looplab.Limits, got {type(limits).__name__}")
        self.client, self.limits, self.system = client, limits, system
        self.model = model if model is not None else configured_model()
        self.max_tokens, self.clock, self.on_turn = max_tokens, clock, on_turn
        self.tools, self.definitions = as_tools(tools)
        self.messages = first_messages(task_or_messages)
        self.turns: list[Turn] = []
        self.usage = dict.fromkeys(USAGE_FIELDS, 0)
        self.repeats = Repeats(limits.repeat_window)
        self.started = clock()
        self.status: str | None = None
        self.detail = ""
        self.error: BaseException | None = None

    @property
    def finished(self) -> bool:
        return self.status is not None

    @property
    def result(self) -> RunResult | None:
        """The `RunResult` once finished, else `None`."""
        if self.status is None:
            return None
        return RunResult(self.status, self.messages, self.turns, dict(self.usage),
                         self.limits, self.error, self.detail)

    def request(self) -> dict[str, Any]:
        """The keyword arguments of the next `client.messages.create` call."""
        body: dict[str, Any] = {
            "model": self.model, "max_tokens": self.max_tokens, "messages": self.messages
        }
        tools = [t.definition() for t in self.tools.values()] + self.definitions
        if tools:
            body["tools"] = tools
        if self.system is not None:
            body["system"] = self.system
        return body

    @property
    def tokens_used(self) -> int:
        return sum(self.usage.values())

    def gates(self) -> GateState:
        """Each gate's counter now, next to its limit."""
        lim = self.limits
        return GateState(
            turns=len(self.turns), max_turns=lim.max_turns,
            tokens_used=self.tokens_used, token_budget=lim.token_budget,
            elapsed_s=self.clock() - self.started, timeout_s=lim.timeout_s,
            repeats=self.repeats.highest, max_repeats=lim.max_repeats,
            tripped=self.status if self.status in GATES else None,
        )

    def _stop_at_gate(self, preflight: bool = False) -> bool:
        closed = closed_gate(self.limits, len(self.turns), self.tokens_used,
                             self.clock() - self.started)
        if closed is None and preflight and self.limits.token_budget is not None:
            try:
                closed = self._preflight(self.limits.token_budget)
            except anthropic.APIError as e:
                self._finish("api_error", describe(e), error=e)
                return True
        if closed is None:
            return False
        self._finish(*closed)
        if self.turns and self.turns[-1].gates is not None:
            self.turns[-1].gates.tripped = closed[0]
        return True

    def _preflight(self, budget: int) -> tuple[str, str] | None:
        body = self.request()
        del body["max_tokens"]
        needed = self.client.messages.count_tokens(**body).input_tokens
        if self.tokens_used + needed <= budget:
            return None
        return "token_budget", Message(
            "pre-flight: the next request needs {needed:,} input tokens; "
            "{used:,} used of {limit:,}", needed=needed, used=self.tokens_used, limit=budget)

    def _record(self, response: Any, content: list[dict[str, Any]], sent: int) -> Turn:
        u = response.usage
        counts = {name: getattr(u, name, None) or 0 for name in USAGE_FIELDS}
        for name, n in counts.items():
            self.usage[name] += n
        before = self.turns[-1].cumulative_input if self.turns else 0
        turn = Turn(
            index=len(self.turns) + 1, messages_sent=sent,
            input_tokens=counts["input_tokens"], output_tokens=counts["output_tokens"],
            cache_creation_input_tokens=counts["cache_creation_input_tokens"],
            cache_read_input_tokens=counts["cache_read_input_tokens"],
            cumulative_input=before + sum(counts.values()) - counts["output_tokens"],
            stop_reason=response.stop_reason, content=content,
        )
        self.turns.append(turn)
        return turn

    def _finish(self, status: str, detail: str = "", error: BaseException | None = None) -> None:
        self.status, self.detail, self.error = status, detail, error

