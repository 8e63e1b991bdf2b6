"""Per-turn overhead of `run_agent` vs the SDK's tool runner: `python benchmarks/bench_loop.py`.

Both loops run the same 50-turn script against the same offline fake API with a trivial
tool (49 turns that call it, then an answer). The fake and the SDK cost the same in both,
so the ratio shows what the loop itself adds per turn: gates, token accounting, schema
validation, a thread per tool call. Best of ten runs each, interleaved; the goal is at most 1.0x.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import anthropic

from looplab import MODEL, Limits, ScriptedModel, call, fake_client, run_agent, say, tool

GOAL = 1.0
TURNS = 50


def script() -> ScriptedModel:
    return ScriptedModel([call("add", a=i, b=1) for i in range(TURNS - 1)] + [say("done")])


def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


ours_add = tool(add)
sdk_add = anthropic.beta_tool(add)
MESSAGES = [{"role": "user", "content": "Count to 49."}]


def ours() -> int:
    model = script()
    limits = Limits(max_turns=None, max_repeats=None, token_budget=None)
    result = run_agent(fake_client(model), "Count to 49.", tools=[ours_add], limits=limits)
    assert str(result) == "done" and len(result.turns) == TURNS
    return len(model.requests)


def sdk_runner() -> int:
    model = script()
    runner = fake_client(model).beta.messages.tool_runner(
        model=MODEL, max_tokens=4096, messages=MESSAGES, tools=[sdk_add],  # type: ignore[list-item]
        thread=False,
    )
    last = runner.until_done()
    assert last.stop_reason == "end_turn"
    return len(model.requests)


def best(run: Callable[[], int], repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        requests = run()
        times.append(time.perf_counter() - start)
        assert requests == TURNS, requests
    return min(times)


def main(rounds: int = 5) -> None:
    best(ours, 1), best(sdk_runner, 1)  # warm up: imports, schema caches
    # interleaved, so a busy spell of the machine hits both loops alike
    a = b = float("inf")
    for _ in range(rounds):
        a, b = min(a, best(ours, 2)), min(b, best(sdk_runner, 2))
    ratio = a / b
    print(f"run_agent:            {a * 1000 / TURNS:6.2f} ms per turn")
    print(f"tool_runner (SDK):    {b * 1000 / TURNS:6.2f} ms per turn")
    print(f"ratio run_agent/tool_runner: {ratio:.2f}x (goal <= {GOAL}x) "
          f"{'ok' if ratio <= GOAL else 'OVER GOAL'}")


if __name__ == "__main__":
    main()
