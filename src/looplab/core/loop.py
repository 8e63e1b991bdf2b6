"""The agent loop: send `messages`, fork on `stop_reason`, run the tools, repeat, until a gate.

    result = run_agent(client, "Run the login tests; if any fail, find out why.",
                       tools=demo_tools())
    print(result)            # "done", or "stopped: max_turns (10 of 10 turns used)", ...

Read it next to the article's `run_agent`: `run_agent` is its loop, and one
`AgentRun.step()` is one turn of it (one request to the model), in the article's order:
gates -> request -> append the reply whole -> fork on `stop_reason` -> repeat check ->
tools -> one user message of results. The messages it appends are written here, as the
article writes them. Each stop is decided once, where it happens, and recorded by `finish`:
data in the `RunResult`, never an exception.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

import anthropic

from ..errors import FinishedRun, Misuse
from ..history.dangling import _close_dangling
from ..i18n import Message, worded
from ..running.output import describe
from .limits import (
    GATES,
    USAGE_FIELDS,
    Limits,
    Repeats,
    Stop,
    check_repeats,
    closed_gate,
    count_usage,
    preflight,
)
from .result import GateState, RunResult, Turn
from .tools import Tool, ToolCall, _answer_calls, as_tools

MODEL = "claude-opus-5-5"
"""The article's model name: what a run sends unless `LOOPLAB_MODEL` names another."""

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

ToolLike = Tool | Callable[..., Any] | dict[str, Any]
DEFAULT_LIMITS = Limits()  # frozen, so one shared default is safe


def run_agent(
    client: anthropic.Anthropic, task_or_messages: str | Sequence[dict[str, Any]], *,
    tools: Iterable[ToolLike] = (), limits: Limits = DEFAULT_LIMITS, model: str | None = None,
    system: str | list[dict[str, Any]] | None = None, max_tokens: int = 4096,
    clock: Callable[[], float] = time.monotonic, on_turn: Callable[[Turn], object] | None = None,
) -> RunResult:
    """Run the loop to the end: one `step()` per turn until a turn stops the run.

    `model` defaults to `LOOPLAB_MODEL` or `MODEL`; `clock` is what the timeout gate
    reads (a `FakeClock` in tests); `on_turn` is called with each `Turn` as it ends.
    """
    run = AgentRun(client, task_or_messages, tools=tools, limits=limits, model=model,
                   system=system, max_tokens=max_tokens, clock=clock, on_turn=on_turn)
    while run.result is None:
        run.step()
    return run.result


class AgentRun:
    """One run of the loop, advanced one turn (one request to the model) at a time.

    `step()` is the article's loop body; `run_agent` calls it until `result` is set.
    Passing a previous `result.messages` as `task_or_messages` continues that run: calls
    it left unanswered are first answered by `close_dangling`.
    """

    def __init__(
        self, client: anthropic.Anthropic, task_or_messages: str | Sequence[dict[str, Any]], *,
        tools: Iterable[ToolLike] = (), limits: Limits = DEFAULT_LIMITS, model: str | None = None,
        system: str | list[dict[str, Any]] | None = None, max_tokens: int = 4096,
        clock: Callable[[], float] = time.monotonic,
        on_turn: Callable[[Turn], object] | None = None,
    ) -> None:
        if not isinstance(limits, Limits):
            raise Misuse(f"limits must be a looplab.Limits, got {type(limits).__name__}")
        if isinstance(client, anthropic.AsyncAnthropic):
            raise Misuse("run_agent takes an anthropic.Anthropic, not an AsyncAnthropic "
                         "(use looplab.fake_client, not async_fake_client)")
        self.client, self.limits, self.system = client, limits, system
        self.model = model if model is not None else (  # as `configured_model()` reads it
            os.environ.get("LOOPLAB_MODEL", "").strip() or MODEL)
        self.max_tokens, self.clock, self.on_turn = max_tokens, clock, on_turn
        self.tools, self.definitions = as_tools(tools)
        # a task is the first user message, as in the article; a previous run's messages go on
        self.messages: list[dict[str, Any]] = ([{"role": "user", "content": task_or_messages}]
                         if isinstance(task_or_messages, str) else continued(task_or_messages))
        self.turns: list[Turn] = []
        self.usage = dict.fromkeys(USAGE_FIELDS, 0)
        self.tokens_used = 0  # the sum of `usage`, the token gate's count
        self.repeats = Repeats(limits.repeat_window)
        self.started = clock()
        self.stop: Stop | None = None
        """Why the run stopped; set once, by `finish`, at the line that decides it."""
        self.result: RunResult | None = None
        """The `RunResult`, made once, when the run stops; `None` until then."""

    @property
    def finished(self) -> bool:  # the run has stopped
        return self.stop is not None

    def step(self) -> Turn | None:
        """One turn: the gates, one request, the reply appended whole, the fork on
        `stop_reason`, the repeat check, the tools, one message of results. Returns the
        new `Turn`, or `None` when a gate stopped the run before any request.

        Ctrl-C (`KeyboardInterrupt`) during the turn ends the run with status
        `interrupted`; calls left unanswered are closed, so the run can go on.
        """
        if self.stop is not None:
            raise FinishedRun(f"this run has finished ({self.stop.status}); to go on, pass "
                              "result.messages to run_agent or to a new AgentRun")
        turn = None
        try:
            turn = self._turn()
        except KeyboardInterrupt:
            self.messages[:] = _close_dangling(self.messages, worded("the run was interrupted"))
            self.finish(Stop("interrupted", Message("KeyboardInterrupt")))
        if turn is not None and self.on_turn is not None:
            self.on_turn(turn)
        return turn

    # `actions`: STOP_REASONS, held here as a graded kernel drops the name (grading/hiding.py)
    def _turn(self, actions: dict[str, Action] = STOP_REASONS) -> Turn | None:
        if self.gate_closed():  # 1. the gates, once: may another request be sent?
            return None
        # 2. one request, exactly as on the wire (APIError: after the SDK's retries)
        sent = len(self.messages)
        try:
            response = self.client.messages.create(**self.request())
        except anthropic.APIError as e:
            self.finish(self._failed(e))
            return None
        usage, unusable = count_usage(response.usage, self.usage, self.limits)
        self.tokens_used = sum(self.usage.values())
        # 3. the assistant's content, appended whole, as plain dicts, less blank text (which the
        # API refuses to take back); not at all when empty (a 400 anywhere but last)
        try:
            content = [b.to_dict(mode="json") for b in response.content]
        except (ValueError, RecursionError) as e:  # the reply is nested too deeply to read
            self.finish(Stop("api_error", Message("the reply could not be read: {error}",
                                                  error=describe(e)), error=e))
            return None
        content = [b for b in content if b.get("type") != "text"
                   or (isinstance(b.get("text"), str) and b["text"].strip())]
        if content:
            self.messages.append({"role": "assistant", "content": content})
        calls = [ToolCall(b["id"], b["name"], b.get("input"))
                 for b in content if b.get("type") == "tool_use"]
        turn = self._record(sent, usage, response.stop_reason, content, calls)
        # 4. the fork on stop_reason
        reason = str(response.stop_reason)
        action = actions.get(reason)
        if action == "run_tools" and calls:
            self._run_tools(calls, unusable)  # 5-7: the repeat check, the tools, the results
        elif unusable is not None:  # the token gate cannot measure: it stops the run
            self.finish(unusable, tripped=True)
        elif action == "done":
            self.finish(Stop("done"))
        elif action == "stop":
            self.finish(Stop(reason))
        elif action is None:
            self.finish(Stop("unknown_stop_reason", Message(
                "stop_reason {value}", value=repr(response.stop_reason))))
        # "resume", or only server tools: the next request sends this turn back as it is
        turn.elapsed_s = self.clock() - self.started  # now that its tools have run
        if turn.gates is not None:
            turn.gates.elapsed_s, turn.gates.repeats = turn.elapsed_s, self.repeats.highest
        return turn

    def gate_closed(self) -> bool:
        """Finish the run if a gate forbids the next request (with `Limits.count_tokens`,
        also when the API's free `count_tokens` says it would cross the budget)."""
        elapsed_s = self.clock() - self.started
        gate = closed_gate(self.limits, len(self.turns), self.tokens_used, elapsed_s)
        if gate is not None:
            self.finish(gate, tripped=True)
        elif self.limits.count_tokens:
            try:
                gate = preflight(self.client, self.request(), self.limits, self.tokens_used)
            except anthropic.APIError as e:
                gate = self._failed(e)
            if gate is not None:
                self.finish(gate)
        return gate is not None

    def _run_tools(self, calls: list[ToolCall], stop: Stop | None) -> None:
        """Steps 5-7 of a turn whose reply asked for tools. `stop`: the run stops after this
        turn whatever the calls are (the token gate could not measure): none of them runs."""
        if stop is None:  # 5. the repeat check, before anything runs
            stop = check_repeats(self.repeats, self.limits, calls)
            if stop is not None and self.limits.on_repeat == "stop":
                self.finish(stop, tripped=True)  # like the article: the calls stay open
                return
        if stop is not None:  # answer every call still open, run none: the history stays valid
            for c in calls:
                if c.outcome == "pending":
                    c.answer(worded("not run: {detail}; the run stopped", detail=stop.detail),
                             is_error=True, outcome="not_run")
        else:
            # 6. the tools, each in a `try`: a failure becomes an is_error result
            try:
                _answer_calls(calls, self.tools, timeout_s=self.limits.tool_timeout_s)
            except KeyboardInterrupt:  # every call has its result all the same
                stop = Stop("interrupted", Message("KeyboardInterrupt while the tools ran"))
        # 7. every result in one user message, in call order, and nothing but tool_result
        self.messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": c.id, "content": c.result,
             **({"is_error": True} if c.is_error else {})} for c in calls]})
        if stop is not None:
            self.finish(stop, tripped=stop.status in GATES)

    def finish(self, stop: Stop, *, tripped: bool = False) -> None:
        """Record why the run stopped, and its `RunResult`: the one place a run ends
        (`tripped`: a gate stopped it, noted in the last turn's `GateState`)."""
        self.stop = stop
        gates = self.turns[-1].gates if tripped and self.turns else None
        if gates is not None:
            gates.tripped = stop.status
        self.result = RunResult(stop.status, self.messages, self.turns, dict(self.usage),
                                self.limits, stop.error, stop.detail)

    # -- what a run knows about itself ------------------------------------------------------

    def request(self) -> dict[str, Any]:
        """The keyword arguments of the next `client.messages.create` call."""
        body: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens,
                                "messages": self.messages}
        tools = [t.definition() for t in self.tools.values()] + self.definitions
        if tools:
            body["tools"] = tools
        if self.system is not None:
            body["system"] = self.system
        return body

    def _failed(self, e: anthropic.APIError) -> Stop:
        """Stop with `api_error`, never showing the client's key or token (echoed back)."""
        detail = describe(e)
        for secret in (getattr(self.client, n, None) for n in ("api_key", "auth_token")):
            detail = detail.replace(secret, "[redacted]") if secret else detail
        return Stop("api_error", Message("{error}", error=detail), error=e)

    def _record(self, sent: int, usage: dict[str, int], stop_reason: str | None,
                content: list[dict[str, Any]], calls: list[ToolCall]) -> Turn:
        before = self.turns[-1].cumulative_input if self.turns else 0
        lim, index, elapsed_s = self.limits, len(self.turns) + 1, self.clock() - self.started
        turn = Turn(
            index=index, messages_sent=sent, **usage,
            cumulative_input=before + sum(usage.values()) - usage["output_tokens"],
            stop_reason=stop_reason, content=content, tool_calls=calls, elapsed_s=elapsed_s,
            gates=GateState(turns=index, max_turns=lim.max_turns, tokens_used=self.tokens_used,
                            token_budget=lim.token_budget, elapsed_s=elapsed_s,
                            timeout_s=lim.timeout_s, repeats=self.repeats.highest,
                            max_repeats=lim.max_repeats),
        )
        self.turns.append(turn)
        return turn


def continued(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A previous run's messages (e.g. `result.messages`), copied, with the calls it left
    unanswered answered first, so the run goes on from them."""
    given = list(messages) if isinstance(messages, Sequence) else []
    copied = [dict(m) for m in given if isinstance(m, dict)]
    if given and len(copied) == len(given):
        return _close_dangling(copied, worded("the previous run stopped before this call was made"))
    raise TypeError("task_or_messages must be a task (str) or a non-empty messages list (e.g. "
                    f"result.messages), got {type(messages).__name__}")


def configured_model(environ: Mapping[str, str] | None = None) -> str:
    """`LOOPLAB_MODEL` when it is set and not blank, else `MODEL`. Read at each call."""
    env = os.environ if environ is None else environ
    return env.get("LOOPLAB_MODEL", "").strip() or MODEL
