"""How check_history's time grows with the history: run `python benchmarks/bench_rules.py`.

Builds valid histories of 10k and 100k messages (100k is the API's limit per request), times
`check_history` on each (best of three) and prints the 100k/10k ratio. Linear time gives a
ratio near 10; the goal is at most 12.
"""

from __future__ import annotations

import time
from typing import Any

from looplab import check_history

GOAL = 12.0


def history(size: int) -> list[dict[str, Any]]:
    """A task, then turns of two parallel calls, their results, and a closing reply."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Fix the failing tests."}]
    turn = 0
    while len(messages) < size - 1:
        turn += 1
        ids = [f"toolu_{turn:06d}a", f"toolu_{turn:06d}b"]
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Step {turn}: reading two files."},
            *({"type": "tool_use", "id": i, "name": "read_file", "input": {"path": i}}
              for i in ids),
        ]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": i, "content": "file text"} for i in ids
        ]})
    messages.append({"role": "assistant", "content": "All tests pass now."})
    return messages[:size]


def best_time(messages: list[dict[str, Any]], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        found = check_history(messages)
        times.append(time.perf_counter() - start)
        assert not found, found  # the benchmark must time the clean path
    return min(times)


def main() -> None:
    sizes = (10_000, 100_000)
    seconds = {}
    for size in sizes:
        seconds[size] = best_time(history(size))
        per_message_us = seconds[size] / size * 1e6
        print(f"{size:>7} messages: {seconds[size]:.3f} s, {per_message_us:.2f} us per message")
    ratio = seconds[sizes[1]] / seconds[sizes[0]]
    verdict = "ok" if ratio <= GOAL else "over the goal"
    print(f"ratio 100k/10k: {ratio:.1f}x (goal <= {GOAL:.0f}x, linear = 10x): {verdict}")


if __name__ == "__main__":
    main()
