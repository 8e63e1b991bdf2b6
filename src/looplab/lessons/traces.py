"""Lesson 21: a run of the loop as a trace, spans in the OpenTelemetry GenAI conventions.

    traced = traced_run(client, task, tools=tools, clock=clock)
    traced.result          # the RunResult, as `run_agent` returns it
    traced.spans           # finished OpenTelemetry spans, in the order they started

One span for the run (`invoke_agent`), and inside it, for each turn: one for the request
(`chat <model>`), one per tool call (`execute_tool <name>`), and one for the gates'
decision after the turn (`gate`). The names and `gen_ai.*` attributes are the GenAI
semantic conventions' (`opentelemetry-semantic-conventions`, so a spelling cannot drift);
the conventions have no gate, so its attributes are looplab's own (`looplab.gate.*`).

The spans are made by the `opentelemetry-sdk` and kept by its in-memory exporter: no
collector, nothing leaves the process. The trace is built from what the loop records (the
`Turn`s, through `on_turn`) and from the tools' start and end on the run's clock, read by
a thin wrapper around each tool: the loop itself is not changed. A tool that runs in a
child process (`isolate="process"`) is timed by its turn only (zero length at its end).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anthropic
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE
from opentelemetry.trace import SpanKind, Status, StatusCode

from ..core.limits import Limits
from ..core.loop import DEFAULT_LIMITS, MODEL, run_agent
from ..core.result import RunResult, ToolCall, Turn
from ..core.tools import Tool, as_tools

AGENT = "looplab"
PROVIDER = gen_ai.GenAiProviderNameValues.ANTHROPIC.value
CHAT = gen_ai.GenAiOperationNameValues.CHAT.value
EXECUTE_TOOL = gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value
INVOKE_AGENT = gen_ai.GenAiOperationNameValues.INVOKE_AGENT.value
GATE = "gate"  # not a GenAI operation: the conventions have no word for a loop's gates
OPERATION = gen_ai.GEN_AI_OPERATION_NAME
GATE_STOPS = ("max_turns", "token_budget", "timeout", "repeated_call")
"""The `RunResult.status` values a gate sets."""
TOOL_ERROR = "tool_error"
"""`error.type` of a tool call answered with `is_error`."""


class FinishedSpan(ReadableSpan):
    """A finished span, as the exporter kept it, that can be pickled: the grader sends a
    trace to a student's kernel by value. Its resource (which holds a lock) stays behind."""

    @classmethod
    def of(cls, span: ReadableSpan) -> FinishedSpan:
        return cls(name=span.name, context=span.context, parent=span.parent,
                   attributes=dict(span.attributes or {}), kind=span.kind,
                   status=span.status, start_time=span.start_time, end_time=span.end_time,
                   resource=Resource({}))  # not None: the SDK would run its detectors

    def __reduce__(self) -> tuple[Any, ...]:
        return (_finished, (self.name, self.context, self.parent, dict(self.attributes or {}),
                            self.kind, self.status, self.start_time, self.end_time))


def _finished(name: str, context: Any, parent: Any, attributes: dict[str, Any], kind: SpanKind,
              status: Status, start: int | None, end: int | None) -> FinishedSpan:
    return FinishedSpan(name=name, context=context, parent=parent, attributes=attributes,
                        kind=kind, status=status, start_time=start, end_time=end,
                        resource=Resource({}))


def nanoseconds(seconds: float) -> int:
    """OpenTelemetry's timestamps are integer nanoseconds."""
    return round(seconds * 1e9)


@dataclass
class Traced:
    """A run and its trace."""

    result: RunResult
    spans: list[FinishedSpan] = field(default_factory=list)
    """Every span of the run, in the order they started (the run's first)."""


class _Recorder:
    """Turns each `Turn` into spans as it ends, under one `invoke_agent` span."""

    def __init__(self, clock: Callable[[], float], model: str, max_tokens: int) -> None:
        self.exporter = InMemorySpanExporter()
        # Resource(...), not Resource.create(...) (nor no resource, which means create): it
        # runs the SDK's resource detectors in a thread pool (the browser edition has no
        # threads) and reads OTEL_* variables
        provider = TracerProvider(resource=Resource({"service.name": AGENT}))
        provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = provider.get_tracer("looplab.lessons.traces")
        self.clock, self.model, self.max_tokens = clock, model, max_tokens
        self.started = clock()
        self.turn_start = self.started
        self.tool_times: list[tuple[str, float, float]] = []
        """(tool name, start, end) of each timed call of the turn under way."""
        self.stopped = False  # a gate span has said "stop"
        self.root = self.tracer.start_span(
            f"{INVOKE_AGENT} {AGENT}", kind=SpanKind.INTERNAL,
            start_time=nanoseconds(self.started),
            attributes={OPERATION: INVOKE_AGENT, gen_ai.GEN_AI_AGENT_NAME: AGENT,
                        gen_ai.GEN_AI_PROVIDER_NAME: PROVIDER,
                        gen_ai.GEN_AI_REQUEST_MODEL: model})
        self.inside = trace.set_span_in_context(self.root)

    def timed(self, t: Tool) -> Tool:
        """`t`, with its start and end read from the run's clock on every call."""

        @functools.wraps(t.fn)
        def timed_fn(*args: Any, **kwargs: Any) -> Any:
            start = self.clock()
            try:
                return t.fn(*args, **kwargs)
            finally:
                self.tool_times.append((t.name, start, self.clock()))

        return t if t.isolate == "process" else dataclasses.replace(t, fn=timed_fn)

    def _span(self, name: str, start: float, end: float, attributes: dict[str, Any], *,
              kind: SpanKind = SpanKind.INTERNAL, error: str | None = None) -> None:
        span = self.tracer.start_span(name, context=self.inside, kind=kind,
                                      start_time=nanoseconds(start), attributes=attributes)
        if error is not None:
            span.set_attribute(ERROR_TYPE, error)
            span.set_status(Status(StatusCode.ERROR, error))
        span.end(end_time=nanoseconds(end))

    def on_turn(self, turn: Turn) -> None:
        end = self.started + turn.elapsed_s
        timed, self.tool_times = self.tool_times, []
        timing: dict[int, tuple[float, float]] = {}
        for c in turn.tool_calls:  # each call that ran takes the next timing of its tool
            found = next((i for i, (name, _, _) in enumerate(timed) if name == c.name), None)
            if c.outcome in ("ran", "interrupted") and found is not None:
                _name, start, stop = timed.pop(found)
                timing[id(c)] = (start, stop)
        request_end = min((start for start, _ in timing.values()), default=end)
        self._span(f"{CHAT} {self.model}", self.turn_start, request_end, {
            OPERATION: CHAT, gen_ai.GEN_AI_PROVIDER_NAME: PROVIDER,
            gen_ai.GEN_AI_REQUEST_MODEL: self.model,
            gen_ai.GEN_AI_REQUEST_MAX_TOKENS: self.max_tokens,
            gen_ai.GEN_AI_RESPONSE_FINISH_REASONS: (turn.stop_reason or "",),
            gen_ai.GEN_AI_USAGE_INPUT_TOKENS: turn.total_input,
            gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: turn.output_tokens,
            "looplab.turn": turn.index}, kind=SpanKind.CLIENT)
        at = request_end
        for c in turn.tool_calls:
            start, stop = timing.get(id(c), (at, at))
            self._tool_span(c, start, stop, turn.index)
            at = stop
        tripped = turn.gates.tripped if turn.gates is not None else None
        blocked = [c.name for c in turn.tool_calls if c.outcome == "blocked"]
        self.turn_start = end
        if turn.stop_reason != "tool_use" and not tripped:
            return  # the run ends with this turn: no gate is asked
        decision = "stop" if tripped else "block" if blocked else "continue"
        self._gate(end, decision, tripped or ("max_repeats" if blocked else ""), turn.index)

    def _gate(self, at: float, decision: str, name: str, turn: int) -> None:
        self.stopped = self.stopped or decision == "stop"
        self._span(GATE, at, at, {OPERATION: GATE, "looplab.gate.decision": decision,
                                  "looplab.gate.name": name, "looplab.turn": turn})

    def _tool_span(self, c: ToolCall, start: float, end: float, turn: int) -> None:
        self._span(f"{EXECUTE_TOOL} {c.name}", start, end, {
            OPERATION: EXECUTE_TOOL, gen_ai.GEN_AI_TOOL_NAME: c.name,
            gen_ai.GEN_AI_TOOL_CALL_ID: c.id, gen_ai.GEN_AI_TOOL_TYPE: "function",
            gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS: json.dumps(c.input, ensure_ascii=False),
            "looplab.tool.outcome": c.outcome, "looplab.turn": turn},
            error=TOOL_ERROR if c.is_error else None)

    def finish(self, result: RunResult) -> list[FinishedSpan]:
        if result.status in GATE_STOPS and not self.stopped:  # checked before a request
            self._gate(self.turn_start, "stop", result.status, len(result.turns) + 1)
        self.root.set_attribute("looplab.run.status", result.status)
        if not result.done:
            self.root.set_attribute(ERROR_TYPE, result.status)
            self.root.set_status(Status(StatusCode.ERROR, result.status))
        self.root.end(end_time=nanoseconds(max(self.clock(), self.turn_start)))
        spans = [FinishedSpan.of(s) for s in self.exporter.get_finished_spans()]
        # by start; the run's span first; spans that start together in the order they ended
        return sorted(spans, key=lambda s: (s.start_time or 0, s.parent is not None))


def traced_run(client: anthropic.Anthropic, task: str | Sequence[dict[str, Any]], *,
               tools: Iterable[Any] = (), limits: Limits = DEFAULT_LIMITS,
               clock: Callable[[], float], model: str = MODEL,
               max_tokens: int = 4096) -> Traced:
    """`run_agent` with every request, tool call and gate decision recorded as a span."""
    recorder = _Recorder(clock, model, max_tokens)
    runnable, definitions = as_tools(tools)
    timed = [recorder.timed(t) for t in runnable.values()]
    result = run_agent(client, task, tools=[*timed, *definitions], limits=limits, model=model,
                       max_tokens=max_tokens, clock=clock, on_turn=recorder.on_turn)
    return Traced(result, recorder.finish(result))


def operation(span: ReadableSpan) -> str:
    """A span's `gen_ai.operation.name` (`chat`, `execute_tool`, `invoke_agent`, `gate`)."""
    return str((span.attributes or {}).get(OPERATION, ""))


def failed(span: ReadableSpan) -> bool:
    """The span ended with status ERROR."""
    return span.status.status_code is StatusCode.ERROR
