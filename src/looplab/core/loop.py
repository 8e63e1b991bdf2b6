"""The agent loop: send `messages`, fork on `stop_reason`, run the tools, repeat, until a gate.

    result = run_agent(client, "Run the login tests; if any fail, find out why.",
                       tools=demo_tools())
    print(result)            # "done", or "stopped: max_turns (10 of 10 turns used)", ...

Read it next to the article's `run_agent`: `run_agent` is its `for` loop, and one
`AgentRun.step()` is one turn of it (one request to the model), in the article's order:
gates -> request -> append the reply whole -> fork on `stop_reason` -> repeat check ->
tools -> one user message of results. Each stop is data in the `RunResult`, never an
exception; tool and API failures never raise.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

import anthropic

from ..history.dangling import close_dangling
from ..running.output import describe
from ..running.words import worded
from .limits import GATES, Limits, Repeats, Stop, check_repeats, closed_gate
from .messages import assistant_content, first_messages, results_message
from .result import GateState, RunResult, ToolCall, Turn
from .tools import Tool, answer_calls, as_tools

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

USAGE_FIELDS = (
    "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"
)
ToolLike = Tool | Callable[..., Any] | dict[str, Any]
DEFAULT_LIMITS = Limits()  # frozen, so one shared default is safe


def run_agent(
    client: anthropic.Anthropic, task_or_messages: str | Sequence[dict[str, Any]], *,
    tools: Iterable[ToolLike] = (), limits: Limits = DEFAULT_LIMITS, model: str | None = None,
    system: str | list[dict[str, Any]] | None = None, max_tokens: int = 4096,
    clock: Callable[[], float] = time.monotonic, on_turn: Callable[[Turn], object] | None = None,
) -> RunResult:
    """Run the loop to the end: one `step()` per turn until the run has a result.

    `model` defaults to `LOOPLAB_MODEL` or `MODEL`; `clock` is what the timeout gate
    reads (a `FakeClock` in tests); `on_turn` is called with each `Turn` as it ends.
    """
    run = AgentRun(client, task_or_messages, tools=tools, limits=limits, model=model,
                   system=system, max_tokens=max_tokens, clock=clock, on_turn=on_turn)
    while not run.finished:
        run.step()
    assert run.result is not None  # finished: a stop was reached
    return run.result


class AgentRun:
    """One run of the loop, advanced one turn (one request to the model) at a time.

    Passing a previous `result.messages` as `task_or_messages` continues that run: calls
    it left unanswered are first answered by `close_dangling`.
    """

    def __init__(
        self,
        client: anthropic.Anthropic,
        task_or_messages: str | Sequence[dict[str, Any]],
        *,
        tools: Iterable[ToolLike] = (),
        limits: Limits = DEFAULT_LIMITS,
        model: str | None = None,
        system: str | list[dict[str, Any]] | None = None,
        max_tokens: int = 4096,
        clock: Callable[[], float] = time.monotonic,
        on_turn: Callable[[Turn], object] | None = None,
    ) -> None:
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a looplab.Limits, got {type(limits).__name__}")
        if isinstance(client, anthropic.AsyncAnthropic):
            raise TypeError("run_agent takes an anthropic.Anthropic, not an AsyncAnthropic "
                            "(use looplab.fake_client, not async_fake_client)")
        self.client, self.limits, self.system = client, limits, system
        self.model = model if model is not None else configured_model()
        self.max_tokens, self.clock, self.on_turn = max_tokens, clock, on_turn
        self.tools, self.definitions = as_tools(tools)
        self.messages = first_messages(task_or_messages)
        self.turns: list[Turn] = []
        self.usage = dict.fromkeys(USAGE_FIELDS, 0)
        self.repeats = Repeats(limits.repeat_window)
        self.started = clock()
        self.stop: Stop | None = None
        """Set once, by `step()`, when the run stops."""

    def step(self) -> Turn | None:
        """One turn. Returns the new `Turn`, or `None` if a gate allowed no request.

        Ctrl-C (`KeyboardInterrupt`) during the request or the tools ends the run with
        status `interrupted`; calls left unanswered are closed, so the run can go on.
        """
        if self.stop is not None:
            raise RuntimeError(f"this run has finished ({self.stop.status}); to go on, pass "
                               "result.messages to run_agent or to a new AgentRun")
        try:
            turn, self.stop = self._turn()
        except KeyboardInterrupt:
            self.messages[:] = close_dangling(self.messages, worded("the run was interrupted"))
            turn, self.stop = None, Stop("interrupted", "KeyboardInterrupt")
        if turn is not None and self.on_turn is not None:
            self.on_turn(turn)
        return turn

    def _turn(self) -> tuple[Turn | None, Stop | None]:
        # 1. the gates: may another request be sent?
        gate = self.next_stop() or self._preflight()
        if gate is not None:
            return None, gate
        # 2. one request, exactly as on the wire
        sent = len(self.messages)
        try:  # APIError: after the SDK's retries; the others: nested too deep to handle
            response = self.client.messages.create(**self.request())
            usage = self._count(response.usage)
            content = assistant_content(response)  # 3. the assistant's content, appended whole
        except (anthropic.APIError, ValueError, RecursionError) as e:
            return None, self._failed(e)
        if content:  # an empty reply (e.g. a refusal before any output) is not kept: an
            # empty message anywhere but last makes the next request a 400
            self.messages.append({"role": "assistant", "content": content})
        calls = [ToolCall(b["id"], b["name"], b.get("input"))
                 for b in content if b.get("type") == "tool_use"]
        # 4. the fork on stop_reason (5-7, the repeat check, tools and results, in _run_tools)
        reason = str(response.stop_reason)
        action = STOP_REASONS.get(reason)
        stop = None
        if action == "run_tools":
            stop = self._run_tools(calls)
        elif action == "done":
            stop = Stop("done")
        elif action == "stop":
            stop = Stop(reason)
        elif action is None:
            stop = Stop("unknown_stop_reason", "stop_reason {value}",
                        {"value": repr(response.stop_reason)})
        # "resume": nothing to add; the next request sends this turn back as it is
        turn = self._turn_record(sent, usage, response.stop_reason, content, calls, stop)
        self.turns.append(turn)
        return turn, stop

    def _run_tools(self, calls: list[ToolCall]) -> Stop | None:
        if not calls:  # only server tools: the next request lets the server finish them
            return None
        # 5. the repeat check, before anything runs
        stop = check_repeats(self.repeats, self.limits, calls)
        if stop is not None:
            if self.limits.on_repeat == "stop":  # like the article: the calls stay open
                return stop
            for c in calls:  # block_then_stop: answer every call, run none
                c.answer(worded("not run: {detail}; the run stopped", detail=stop.said()),
                         is_error=True, outcome="not_run")
        else:
            # 6. the tools; a failing tool becomes an is_error result, never an exception
            answer_calls([c for c in calls if c.outcome != "blocked"], self.tools,
                         timeout_s=self.limits.tool_timeout_s)
        # 7. every result in one user message, in call order, and nothing but tool_result
        self.messages.append(results_message(calls))
        if stop is None and any(c.outcome == "interrupted" for c in calls):
            stop = Stop("interrupted", "a tool raised KeyboardInterrupt")
        return stop

    # -- what a run knows about itself ------------------------------------------------------

    @property
    def finished(self) -> bool:
        """True once the run has stopped, or no gate would let another request go."""
        return self.stop is not None or self.next_stop() is not None

    @property
    def result(self) -> RunResult | None:
        """The `RunResult` once finished, else `None`."""
        stop = self.stop or self.next_stop()
        if stop is None:
            return None
        return RunResult(stop.status, self.messages, self.turns, dict(self.usage),
                         self.limits, stop.error, stop.detail, (stop.template, stop.fields))

    def next_stop(self, turns: int | None = None) -> Stop | None:
        """The gate that forbids another request now, if any (asks nothing of the API).
        `turns`: count that many turns made instead of `len(self.turns)`."""
        turns = len(self.turns) if turns is None else turns
        return closed_gate(self.limits, turns, self.tokens_used, self.elapsed_s)

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

    @property
    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def gates(self, stop: Stop | None = None, turns: int | None = None) -> GateState:
        """Each gate's counter now, next to its limit, and the gate that stops the run
        (`stop`, else the one that forbids another request)."""
        lim, turns = self.limits, len(self.turns) if turns is None else turns
        stop = stop or self.next_stop(turns)
        return GateState(
            turns=turns, max_turns=lim.max_turns,
            tokens_used=self.tokens_used, token_budget=lim.token_budget,
            elapsed_s=self.elapsed_s, timeout_s=lim.timeout_s,
            repeats=self.repeats.highest, max_repeats=lim.max_repeats,
            tripped=stop.status if stop is not None and stop.status in GATES else None,
        )

    def _preflight(self) -> Stop | None:
        """With `Limits.count_tokens`: stop before a request whose input would cross the
        token budget (asks the API's free `count_tokens` first)."""
        budget = self.limits.token_budget
        if not self.limits.count_tokens or budget is None:
            return None
        body = self.request()
        del body["max_tokens"]
        try:
            needed = self.client.messages.count_tokens(**body).input_tokens
        except anthropic.APIError as e:
            return self._failed(e)
        if self.tokens_used + needed <= budget:
            return None
        return Stop("token_budget", "pre-flight: the next request needs {needed:,} input "
                    "tokens; {used:,} used of {limit:,}",
                    {"needed": needed, "used": self.tokens_used, "limit": budget})

    def _failed(self, e: BaseException) -> Stop:
        """Stop with `api_error`, never showing the client's key or token (echoed back)."""
        detail = describe(e)
        for secret in (getattr(self.client, n, None) for n in ("api_key", "auth_token")):
            detail = detail.replace(secret, "[redacted]") if secret else detail
        return Stop("api_error", detail, error=e)

    def _count(self, usage: Any) -> dict[str, int]:
        """This response's usage, added to the run's."""
        counts = {name: getattr(usage, name, None) or 0 for name in USAGE_FIELDS}
        for name, n in counts.items():
            self.usage[name] += n
        return counts

    def _turn_record(self, sent: int, usage: dict[str, int], stop_reason: str | None,
                     content: list[dict[str, Any]], calls: list[ToolCall],
                     stop: Stop | None) -> Turn:
        before = self.turns[-1].cumulative_input if self.turns else 0
        index = len(self.turns) + 1
        return Turn(
            index=index, messages_sent=sent,
            input_tokens=usage["input_tokens"], output_tokens=usage["output_tokens"],
            cache_creation_input_tokens=usage["cache_creation_input_tokens"],
            cache_read_input_tokens=usage["cache_read_input_tokens"],
            cumulative_input=before + sum(usage.values()) - usage["output_tokens"],
            stop_reason=stop_reason, content=content, tool_calls=calls,
            elapsed_s=self.elapsed_s, gates=self.gates(stop, turns=index),
        )


def configured_model(environ: Mapping[str, str] | None = None) -> str:
    """`LOOPLAB_MODEL` when it is set and not blank, else `MODEL`. Read at each call."""
    env = os.environ if environ is None else environ
    return env.get("LOOPLAB_MODEL", "").strip() or MODEL
