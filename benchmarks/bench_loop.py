"""Per-turn cost of `run_agent` vs the article's plain loop and vs the SDK's tool runner:
`python benchmarks/bench_loop.py`.

All three run the same 50-turn script against the same offline fake API with a trivial
tool (49 turns that call it, then an answer). The fake and the SDK cost the same in each,
so the ratios show what `run_agent` adds per turn: gates, token accounting, schema
validation, the turn records. Best of ten runs each, interleaved. Goals: at most 1.05x the
plain loop (create, append, run the tools, one results message: nothing else) and at
most 1.0x the tool runner.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import anthropic

from looplab import MODEL, Limits, ScriptedModel, call, fake_client, run_agent, say, tool

PLAIN_GOAL = 1.05
RUNNER_GOAL = 1.0
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


def plain() -> int:
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
            {"type": "tool_result", "tool_use_id": b.id, "content": add(**b.input)}
            for b in response.content if b.type == "tool_use"]})
    assert response.stop_reason == "end_turn"
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
    best(ours, 1), best(plain, 1), best(sdk_runner, 1)  # warm up: imports, schema caches
    # interleaved, so a busy spell of the machine hits all three alike
    a = p = r = float("inf")
    for _ in range(rounds):
        a, p, r = min(a, best(ours, 2)), min(p, best(plain, 2)), min(r, best(sdk_runner, 2))
    print(f"run_agent:            {a * 1000 / TURNS:6.2f} ms per turn")
    print(f"plain loop:           {p * 1000 / TURNS:6.2f} ms per turn")
    print(f"tool_runner (SDK):    {r * 1000 / TURNS:6.2f} ms per turn")
    for name, ratio, goal in (("plain loop", a / p, PLAIN_GOAL),
                              ("tool_runner", a / r, RUNNER_GOAL)):
        print(f"ratio run_agent/{name}: {ratio:.2f}x (goal <= {goal}x) "
              f"{'ok' if ratio <= goal else 'OVER GOAL'}")


if __name__ == "__main__":
    main()
