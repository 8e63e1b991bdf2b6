"""The agent loop: send `messages`, act on `stop_reason`, run the tools, repeat, until a gate.

    result = run_agent(client, "Run the login tests; if any fail, find out why.",
                       tools=demo_tools())
    print(result)            # "done", or "stopped: max_turns", ...

`AgentRun.step()` is one model request plus the tools it asks for; `run_agent` steps an
`AgentRun` until it has finished. Gates are checked before every request; each stop is
data in the `RunResult`, never an exception. Tool and API failures never raise.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

import anthropic

from .dangling import close_dangling
from .limits import Limits
from .result import GateState, RunResult, ToolCall, Turn
from .running import run_calls
from .tools import Tool, as_tools

MODEL = "claude-opus-5-5"
"""The model name the lessons pass to `client.messages.create(model=...)`."""

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

GATES = ("max_turns", "token_budget", "timeout", "repeated_call")
USAGE_FIELDS = (
    "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"
)


class AgentRun:
    """One run of the loop, advanced one model request at a time with `step()`.

    `finished` turns true when the run stops; `result` is then its `RunResult`. Passing a
    previous `result.messages` as `task_or_messages` continues that run: calls it left
    unanswered are first answered by `close_dangling`.
    """

    def __init__(
        self,
        client: anthropic.Anthropic,
        task_or_messages: str | Sequence[dict[str, Any]],
        *,
        tools: Iterable[Tool | Callable[..., Any] | dict[str, Any]] = (),
        limits: Limits = Limits(),  # noqa: B008 (frozen, so one shared default is safe)
        model: str = MODEL,
        system: str | list[dict[str, Any]] | None = None,
        max_tokens: int = 4096,
        clock: Callable[[], float] = time.monotonic,
        on_turn: Callable[[Turn], object] | None = None,
    ) -> None:
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a looplab.Limits, got {type(limits).__name__}")
        self.client, self.limits, self.model, self.system = client, limits, model, system
        self.max_tokens, self.clock, self.on_turn = max_tokens, clock, on_turn
        self.tools, self.definitions = as_tools(tools)
        self.messages = _start(task_or_messages)
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

    def step(self) -> Turn | None:
        """One request and its tools. Returns the new `Turn`, or `None` if none was made.

        Ctrl-C (`KeyboardInterrupt`) during the request or the tools ends the run with
        status `interrupted`; calls left unanswered are closed, so the run can go on.
        """
        if self.status is not None:
            raise RuntimeError(f"this run has finished ({self.status}); to go on, pass "
                               "result.messages to run_agent or to a new AgentRun")
        try:
            return self._step()
        except KeyboardInterrupt:
            self.messages[:] = close_dangling(self.messages, "the run was interrupted")
            self._finish("interrupted", "KeyboardInterrupt")
            return None

    def _step(self) -> Turn | None:
        if self._stop_at_gate(preflight=self.limits.count_tokens):
            return None
        sent = len(self.messages)
        try:
            response = self.client.messages.create(**self.request())
        except anthropic.APIError as e:  # raised after the SDK's own retries
            self._finish("api_error", f"{type(e).__name__}: {e}", error=e)
            return None
        content = [block.to_dict(mode="json") for block in response.content]
        content = [b for b in content if not _blank_text(b)]
        if content:  # whole, unchanged; an empty reply (e.g. a refusal before any output)
            # is not kept: an empty message anywhere but last makes the next request a 400
            self.messages.append({"role": "assistant", "content": content})
        turn = self._record(response, content, sent)

        action = STOP_REASONS.get(str(response.stop_reason), None)
        turn.tool_calls = [ToolCall(b["id"], b["name"], b.get("input"), outcome="not_run")
                           for b in content if b.get("type") == "tool_use"]
        if action == "run_tools":
            self._run_tools(turn)
        elif action == "done":
            self._finish("done")
        elif action == "stop":
            self._finish(str(response.stop_reason))
        elif action is None:
            self._finish("unknown_stop_reason", f"stop_reason {response.stop_reason!r}")
        # "resume": nothing to add; the next request sends this turn back as it is

        turn.elapsed_s = self.clock() - self.started
        if self.status is None:
            self._stop_at_gate()  # so `finished` is true as soon as no request may follow
        turn.gates = self.gates()
        if self.on_turn is not None:
            self.on_turn(turn)
        return turn

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

    # -- helpers --------------------------------------------------------------------------

    def _stop_at_gate(self, preflight: bool = False) -> bool:
        closed = closed_gate(self.limits, len(self.turns), self.tokens_used,
                             self.clock() - self.started)
        if closed is None and preflight and self.limits.token_budget is not None:
            try:
                closed = self._preflight(self.limits.token_budget)
            except anthropic.APIError as e:
                self._finish("api_error", f"{type(e).__name__}: {e}", error=e)
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
        return "token_budget", (f"pre-flight: the next request needs {needed:,} input tokens; "
                                f"{self.tokens_used:,} used of {budget:,}")

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

    def _run_tools(self, turn: Turn) -> None:
        calls = turn.tool_calls
        for c in calls:
            c.outcome = "ran"
        if not calls:  # only server tools: the next request lets the server finish them
            return
        stop = self._repeat_gate(calls)
        if stop is not None:
            if self.limits.on_repeat == "block_then_stop":  # answer every call, run none
                self.messages[:] = close_dangling(self.messages, f"{stop}; the run stopped")
                for c, r in zip(calls, self.messages[-1]["content"], strict=True):
                    c.result, c.is_error = r["content"], True
            for c in calls:
                c.outcome = "not_run"
            self._finish("repeated_call", stop)
            return
        run_calls([c for c in calls if c.outcome == "ran"], self.tools,
                  timeout_s=self.limits.tool_timeout_s, clock=self.clock)
        # every result in one user message, in call order, and nothing but tool_result
        self.messages.append({"role": "user", "content": [tool_result(c) for c in calls]})
        if any(c.outcome == "interrupted" for c in calls):
            self._finish("interrupted", "a tool raised KeyboardInterrupt")

    def _repeat_gate(self, calls: list[ToolCall]) -> str | None:
        """Count each call; block the `max_repeats`-th identical one, or say why to stop."""
        limit = self.limits.max_repeats
        for c in calls:
            n = self.repeats.add(c.name, c.input)
            if limit is None or n < limit:
                continue
            if self.limits.on_repeat == "stop" or n > limit:
                return f"{c.name} {canonical(c.input)}: identical call made {n} times"
            c.outcome, c.is_error = "blocked", True
            c.result = f"not run: identical call made {n} times; change approach"
        return None

    def _finish(self, status: str, detail: str = "", error: BaseException | None = None) -> None:
        self.status, self.detail, self.error = status, detail, error


def run_agent(
    client: anthropic.Anthropic,
    task_or_messages: str | Sequence[dict[str, Any]],
    *,
    tools: Iterable[Tool | Callable[..., Any] | dict[str, Any]] = (),
    limits: Limits = Limits(),  # noqa: B008 (frozen, so one shared default is safe)
    model: str = MODEL,
    system: str | list[dict[str, Any]] | None = None,
    max_tokens: int = 4096,
    clock: Callable[[], float] = time.monotonic,
    on_turn: Callable[[Turn], object] | None = None,
) -> RunResult:
    """Run the loop to the end: `AgentRun(...)` stepped until it has finished."""
    run = AgentRun(client, task_or_messages, tools=tools, limits=limits, model=model,
                   system=system, max_tokens=max_tokens, clock=clock, on_turn=on_turn)
    while run.result is None:
        run.step()
    return run.result


def closed_gate(
    limits: Limits, turns: int, tokens: int, elapsed_s: float
) -> tuple[str, str] | None:
    """The first gate that forbids another request, with a few words on why."""
    if limits.max_turns is not None and turns >= limits.max_turns:
        return "max_turns", f"{turns} of {limits.max_turns} turns used"
    if limits.token_budget is not None and tokens >= limits.token_budget:
        return "token_budget", f"{tokens:,} of {limits.token_budget:,} tokens used"
    if limits.timeout_s is not None and elapsed_s >= limits.timeout_s:
        return "timeout", f"{elapsed_s:g} s of {limits.timeout_s:g} s"
    return None


def canonical(value: Any) -> str:
    """A tool input as canonical JSON: equal inputs give equal text."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class Repeats:
    """How often each (tool name, input) call has been made.

    `cumulative` counts over the whole run, so a legitimate re-read after an edit counts
    too. `consecutive` counts a call only while nothing else comes in between (in call
    order, across turns); any other call starts the counting again.
    """

    def __init__(self, window: str = "cumulative") -> None:
        self.window = window
        self.counts: dict[str, int] = {}
        self.last: str | None = None
        self.highest = 0

    def add(self, name: str, input: Any) -> int:
        key = f"{name} {canonical(input)}"
        if self.window == "consecutive" and key != self.last:
            self.counts.clear()
        self.counts[key] = self.counts.get(key, 0) + 1
        self.last, self.highest = key, max(self.highest, self.counts[key])
        return self.counts[key]


def _blank_text(block: dict[str, Any]) -> bool:
    """A text block the API refuses to take back ("text content blocks must be
    non-empty"): dropped, so a run that ends on it leaves a history that can go on."""
    if block.get("type") != "text":
        return False
    text = block.get("text")
    return not isinstance(text, str) or not text.strip()


def tool_result(c: ToolCall) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": c.id, "content": c.result}
    if c.is_error:
        block["is_error"] = True
    return block


def _start(task_or_messages: str | Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(task_or_messages, str):
        return [{"role": "user", "content": task_or_messages}]
    given = list(task_or_messages) if isinstance(task_or_messages, Sequence) else []
    messages = [dict(m) for m in given if isinstance(m, dict)]
    if given and len(messages) == len(given):
        return close_dangling(messages, "the previous run stopped before this call was made")
    raise TypeError(
        "task_or_messages must be a task (str) or a non-empty messages list (e.g. "
        f"result.messages), got {type(task_or_messages).__name__}"
    )
