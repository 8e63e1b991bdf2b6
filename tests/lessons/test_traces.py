"""Lesson 21's tracer: a run recorded as OpenTelemetry spans in the GenAI conventions, built
from what the loop reports, without changing what the run does."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from looplab import Limits, run_agent
from looplab.core.tools import ToolError, tool
from looplab.fake import FakeClock, ScriptedModel, call, fake_client, reply, say
from looplab.lessons.path_evals import run_trial, went_wrong
from looplab.lessons.traces import failed, operation, traced_run
from looplab.views.timeline import Timeline


def script() -> list[Any]:
    return [reply(call("lookup", key="bad"), delay_s=0.5),
            reply(call("lookup", key="good"), delay_s=0.25), reply(say("found it"), delay_s=1.0)]


def lookup_tool(clock: FakeClock) -> Any:
    @tool
    def lookup(key: str) -> str:
        """Look a key up."""
        clock.advance(0.125)
        if key != "good":
            raise ToolError(f"no such key: {key}")
        return "found"

    return lookup


def traced(limits: Limits | None = None) -> Any:
    clock = FakeClock()
    return traced_run(fake_client(ScriptedModel(script()), clock=clock), "Look it up.",
                      tools=[lookup_tool(clock)], clock=clock, limits=limits or Limits())


def test_each_request_tool_call_and_gate_decision_is_one_span_under_the_run() -> None:
    spans = traced().spans
    assert [s.name for s in spans] == [
        "invoke_agent looplab", "chat claude-opus-5-5", "execute_tool lookup", "gate",
        "chat claude-opus-5-5", "execute_tool lookup", "gate", "chat claude-opus-5-5"]
    root = spans[0]
    assert root.parent is None and all(s.parent.span_id == root.context.span_id for s in spans[1:])
    assert len({s.context.trace_id for s in spans}) == 1


def test_the_spans_carry_the_genai_conventions_attributes() -> None:
    spans = traced().spans
    chat = spans[1].attributes
    assert chat["gen_ai.operation.name"] == "chat" and chat["gen_ai.provider.name"] == "anthropic"
    assert chat["gen_ai.request.model"] == "claude-opus-5-5"
    assert chat["gen_ai.response.finish_reasons"] == ("tool_use",)
    assert chat["gen_ai.usage.input_tokens"] > 0 and chat["gen_ai.usage.output_tokens"] > 0
    bad, good = spans[2], spans[5]
    assert bad.attributes["gen_ai.tool.name"] == "lookup"
    assert bad.attributes["gen_ai.tool.call.id"].startswith("toolu_")
    assert bad.attributes["gen_ai.tool.call.arguments"] == '{"key": "bad"}'
    assert failed(bad) and bad.attributes["error.type"] == "tool_error" and not failed(good)
    assert operation(spans[0]) == "invoke_agent" and not failed(spans[0])


def test_the_spans_are_timed_on_the_runs_clock() -> None:
    spans = traced().spans
    times = [((s.start_time or 0) / 1e9, (s.end_time or 0) / 1e9) for s in spans]
    assert times == [(0, 2.0), (0, 0.5), (0.5, 0.625), (0.625, 0.625), (0.625, 0.875),
                     (0.875, 1.0), (1.0, 1.0), (1.0, 2.0)]


def test_tracing_changes_nothing_the_run_does() -> None:
    clock = FakeClock()
    plain = run_agent(fake_client(ScriptedModel(script()), clock=clock), "Look it up.",
                      tools=[lookup_tool(clock)], clock=clock)
    result = traced().result
    strip = [{**m, "content": [{k: v for k, v in b.items() if k != "id" and k != "tool_use_id"}
                              for b in m["content"]] if isinstance(m["content"], list)
              else m["content"]} for m in plain.messages]
    again = [{**m, "content": [{k: v for k, v in b.items() if k != "id" and k != "tool_use_id"}
                              for b in m["content"]] if isinstance(m["content"], list)
              else m["content"]} for m in result.messages]
    assert (result.status, again, result.usage) == (plain.status, strip, plain.usage)


def test_a_run_a_gate_stops_is_an_error_and_its_last_gate_says_stop() -> None:
    spans = traced(Limits(max_turns=2)).spans
    assert failed(spans[0]) and spans[0].attributes["error.type"] == "max_turns"
    gates = [s for s in spans if operation(s) == "gate"]
    decisions = [g.attributes["looplab.gate.decision"] for g in gates]
    assert decisions == ["continue", "continue", "stop"]
    assert gates[-1].attributes["looplab.gate.name"] == "max_turns"
    assert gates[-1].attributes["looplab.turn"] == 3  # the request it did not let through


def test_runs_traced_in_threads_at_once_keep_their_own_spans() -> None:
    found: list[list[str]] = []

    def one() -> None:
        found.append([s.name for s in traced().spans])

    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(found) == 6 and all(len(names) == 8 for names in found)


def test_a_failed_trial_is_pinned_to_the_call_it_never_got_past() -> None:
    stuck = run_trial(1)
    assert not stuck.passed and stuck.spans[-1].attributes["looplab.gate.decision"] == "stop"
    step = went_wrong(stuck.spans)
    assert step is not None and step.attributes["looplab.turn"] == 2
    assert step.attributes["gen_ai.tool.call.arguments"] == '{"path": "src/login.py"}'
    recovered_then_wrong = run_trial(3)
    assert not recovered_then_wrong.passed
    assert operation(went_wrong(recovered_then_wrong.spans)) == "chat"


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_the_timeline_shows_each_span_with_errors_marked(language: str) -> None:
    import looplab

    looplab.set_language(language)
    try:
        view = Timeline(traced().spans)
        text, page = repr(view), view._repr_html_()
    finally:
        looplab.set_language("en")
    assert len(text.splitlines()) == 9 and text.count("✗") == 1
    assert "execute_tool lookup ✗" in text and page.count("<tr>") == 9
    assert "<script" not in page and ("时长" in text) == (language == "zh-CN")


def test_a_trace_pickles_so_the_grader_can_send_it_to_a_kernel() -> None:
    import pickle

    spans = traced().spans
    again = pickle.loads(pickle.dumps(spans))
    assert [(s.name, dict(s.attributes or {}), s.status.status_code, s.start_time, s.end_time,
             s.parent and s.parent.span_id) for s in again] == [
        (s.name, dict(s.attributes or {}), s.status.status_code, s.start_time, s.end_time,
         s.parent and s.parent.span_id) for s in spans]
    assert [failed(s) for s in again] == [failed(s) for s in spans]


def test_a_tool_run_in_a_process_beside_a_timed_one_keeps_each_its_own_time() -> None:
    clock = FakeClock()

    @tool(isolate="process")
    def far(x: int) -> str:
        """Runs in a child process."""
        return "far"

    model = ScriptedModel([reply(call("far", x=1), call("lookup", key="good"), delay_s=0.5),
                           reply(say("ok"), delay_s=0.5)])
    spans = traced_run(fake_client(model, clock=clock), "Go.", clock=clock,
                       tools=[far, lookup_tool(clock)]).spans
    times = {s.name: ((s.start_time or 0) / 1e9, (s.end_time or 0) / 1e9) for s in spans
             if operation(s) == "execute_tool"}
    assert times == {"execute_tool far": (0.5, 0.5), "execute_tool lookup": (0.5, 0.625)}


def test_a_trial_is_traced_without_starting_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The browser edition (Pyodide) cannot start threads: lesson 21 runs there only if
    tracing a run starts none (the SDK's `Resource.create` runs its detectors in a pool)."""
    def no_thread(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", no_thread)
    assert run_trial(2).passed
