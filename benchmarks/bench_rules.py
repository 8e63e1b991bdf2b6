"""How check_history's time grows with the history: run `python benchmarks/bench_rules.py`.

Builds valid histories of 10k and 100k messages (100k is the API's limit per request), times
`check_history` on each and prints the 100k/10k ratio and the cost per message. Linear time
gives a ratio near 10; the goal is at most 12.
"""

from __future__ import annotations

import gc
import time
from typing import Any

from goals import judged

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


def seconds_per_call(messages: list[dict[str, Any]], calls: int, repeats: int = 5) -> float:
    """CPU seconds per call: the best of `repeats` windows of `calls` back-to-back calls.

    CPU time of this process (not wall time), and windows of about the same length for both
    sizes, so other programs on a busy machine do not skew the ratio.
    """
    assert not check_history(messages)  # the benchmark must time the clean path
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(calls):
            check_history(messages)
        best = min(best, (time.process_time() - start) / calls)
    return best


def main() -> None:
    small, large = 10_000, 100_000
    seconds = {}
    for size in (small, large):
        messages = history(size)
        # The history is long-lived input: freeze it so the garbage collector does not
        # re-scan it on every collection (that cost grows with the heap, not with the rules).
        gc.collect()
        gc.freeze()
        seconds[size] = seconds_per_call(messages, calls=large // size)
        gc.unfreeze()
        per_message_us = seconds[size] / size * 1e6
        print(f"{size:>7} messages: {seconds[size]:.3f} s CPU, {per_message_us:.2f} us per message")
    ratio = seconds[large] / seconds[small]
    print(judged("100k/10k messages (linear = 10x)", ratio, GOAL, digits=1))


if __name__ == "__main__":
    main()
