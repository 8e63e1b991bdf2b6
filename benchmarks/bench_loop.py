"""Per-turn cost of `run_agent` vs the article's plain loop and vs the SDK's tool runner:
`python benchmarks/bench_loop.py`.

All of them run the same 50-turn script against the same offline fake API with a trivial
tool (49 turns that call it, then an answer). The fake and the SDK cost the same in each,
so the ratios show what `run_agent` adds per turn: gates, token accounting, schema
validation, the turn records. A default tool runs in the loop's own thread, as in the
article. Goals: at most 1.0x the plain loop (create, append, run the tools, one results
message: nothing else) and at most 0.8x the tool runner.

A tool with `timeout_s` runs each call in a thread of its own: that pair is judged against
the plain loop that hands each call to a new thread the same way (start it, wait on a lock
with the timeout), goal at most 1.05x. The median of 31 rounds, each loop run side by side.
"""

from __future__ import annotations

import gc
import statistics
import threading
import time
from collections.abc import Callable

import anthropic
from goals import judged

from looplab import MODEL, Limits, ScriptedModel, Tool, call, fake_client, run_agent, say, tool

PLAIN_GOAL = 1.0
RUNNER_GOAL = 0.8
TIMED_GOAL = 1.05
TURNS = 50


def script() -> ScriptedModel:
    return ScriptedModel([call("add", a=i, b=1) for i in range(TURNS - 1)] + [say("done")])


def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


ours_add = tool(add)
timed_add = tool(timeout_s=30)(add)
sdk_add = anthropic.beta_tool(add)
MESSAGES = [{"role": "user", "content": "Count to 49."}]


def ours(add_tool: Tool = ours_add) -> int:
    model = script()
    limits = Limits(max_turns=None, max_repeats=None, token_budget=None)
    result = run_agent(fake_client(model), "Count to 49.", tools=[add_tool], limits=limits)
    assert str(result) == "done" and len(result.turns) == TURNS
    return len(model.requests)


def run_here(fn: Callable[..., str], input: dict[str, int]) -> str:
    return fn(**input)


def plain(run_tool: Callable[[Callable[..., str], dict[str, int]], str] = run_here) -> int:
    """The article's loop, nothing added: no gates, no validation, no records."""
    model = script()
    client = fake_client(model)
    messages: list[dict[str, object]] = [{"role": "user", "content": "Count to 49."}]
    while True:
        response = client.messages.create(model=MODEL, max_tokens=4096, messages=messages,
                                          tools=[ours_add.definition()])  # type: ignore[list-item]
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            break
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b.id, "content": run_tool(add, b.input)}
            for b in response.content if b.type == "tool_use"]})
    assert response.stop_reason == "end_turn"
    return len(model.requests)


def in_a_thread(fn: Callable[..., str], input: dict[str, int]) -> str:
    """Run the call in a new thread and wait for it with a timeout, as a timed tool is run."""
    done, box = threading.Lock(), []
    done.acquire()

    def work() -> None:
        box.append(fn(**input))
        done.release()

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    done.acquire(timeout=30)
    thread.join()
    return box[0]


def sdk_runner() -> int:
    model = script()
    runner = fake_client(model).beta.messages.tool_runner(
        model=MODEL, max_tokens=4096, messages=MESSAGES, tools=[sdk_add],  # type: ignore[list-item]
        thread=False,
    )
    last = runner.until_done()
    assert last.stop_reason == "end_turn"
    return len(model.requests)


def timed(run: Callable[[], int]) -> float:
    gc.collect()  # each run starts with no garbage of the one before it to collect
    start = time.perf_counter()
    requests = run()
    elapsed = time.perf_counter() - start
    assert requests == TURNS, requests
    return elapsed


def main(rounds: int = 31) -> None:
    runs = [("ours", ours), ("plain", plain), ("runner", sdk_runner),
            ("ours_timed", lambda: ours(timed_add)), ("plain_thread", lambda: plain(in_a_thread))]
    for _, run in runs:
        timed(run)  # warm up: imports, schema caches
    # This machine's speed drifts by more than the few per cent measured here, even within
    # a second. So the four run side by side, one run each per round (the order turning
    # round by round), each round gives its own ratios, and the median round is reported.
    times: dict[str, list[float]] = {name: [] for name, _ in runs}
    for i in range(rounds):
        for name, run in runs[i % len(runs):] + runs[:i % len(runs)]:
            times[name].append(timed(run))
    for name, label in (("ours", "run_agent:"), ("plain", "plain loop:"),
                        ("runner", "tool_runner (SDK):"), ("ours_timed", "run_agent, timeout_s:"),
                        ("plain_thread", "plain, call in a thread:")):
        print(f"{label:<25} {statistics.median(times[name]) * 1000 / TURNS:6.2f} ms per turn")

    def ratio(mine: str, other: str) -> float:
        return statistics.median(a / b for a, b in zip(times[mine], times[other], strict=True))

    print(judged("run_agent/plain loop", ratio("ours", "plain"), PLAIN_GOAL))
    print(judged("run_agent/tool_runner", ratio("ours", "runner"), RUNNER_GOAL))
    print(judged("run_agent with timeout_s/plain loop with a thread per call",
                 ratio("ours_timed", "plain_thread"), TIMED_GOAL))


if __name__ == "__main__":
    main()
