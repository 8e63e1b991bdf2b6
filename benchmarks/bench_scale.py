"""Long runs cost what they carry: `python benchmarks/bench_scale.py`.

Every request of an agent run carries the whole history, so some growth is inherent; the
rest is not. Three ratios, measured in one run against the offline fake, recording to a
cassette, with a tool whose result is about a kilobyte of log:

- peak memory (tracemalloc) of a 400-turn run against a 200-turn run: at most 2.2x
  (one history, twice as long; a copy of every request would make it 4x);
- cassette size of a 200-turn run against a 100-turn run: at most 2.2x (each exchange
  stores what its request adds; whole requests would make it 4x);
- the fake's own time for the last request of the 400-turn run against the SDK's time to
  serialise that request: at most 1.0x (CPU time of this thread, best of 15 interleaved
  tries, so other processes on a busy machine do not count).
"""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import anthropic
import httpx2
from goals import judged

from looplab import Limits, ScriptedModel, call, fake_client, record, run_agent, say, tool
from looplab.fake.server import FakeServer

MEMORY_GOAL = 2.2
SIZE_GOAL = 2.2
FAKE_GOAL = 1.0
LIMITS = Limits(max_turns=None, max_repeats=None, token_budget=None, timeout_s=None)


@tool
def read_page(n: int) -> str:
    """Read page n of a long log."""
    return f"page {n}: " + "the lockout counter was not reset after a good login. " * 18


def script(turns: int) -> ScriptedModel:
    return ScriptedModel([call("read_page", n=i) for i in range(turns - 1)] + [say("done")])


def recorded_run(turns: int, folder: Path) -> tuple[ScriptedModel, Path]:
    model, path = script(turns), folder / f"run-{turns}.json"
    folder.mkdir(parents=True, exist_ok=True)
    result = run_agent(record(fake_client(model), path), "Read the log.", tools=[read_page],
                       limits=LIMITS)
    assert result.status == "done" and len(result.turns) == turns
    return model, path


def peak_memory(turns: int, folder: Path) -> int:
    tracemalloc.start()
    try:
        recorded_run(turns, folder / "memory" / str(turns))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class Sent(Exception):
    """Raised by the capturing transport: the request is serialised, stop there."""


def serialise_time(body: dict[str, Any]) -> tuple[float, httpx2.Request]:
    """Seconds the SDK takes from `create(...)` to the request on the wire, and it."""
    seen: list[tuple[float, httpx2.Request]] = []

    def capture(request: httpx2.Request) -> httpx2.Response:
        seen.append((time.thread_time(), request))
        raise Sent

    client = anthropic.Anthropic(api_key="sk-ant-bench", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(capture)))
    start = time.thread_time()
    try:
        client.messages.create(**body)
    except anthropic.APIConnectionError:
        pass
    return seen[0][0] - start, seen[0][1]


def fake_time(model: ScriptedModel, request: httpx2.Request) -> float:
    """Seconds the fake takes to check and answer `request`, its history in memory."""
    server = FakeServer(model)
    model.steps.append(say("one more"))  # type: ignore[attr-defined]
    start = time.thread_time()
    server.prepare(request)
    return time.thread_time() - start


def best(values: list[float]) -> float:
    return min(values)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "memory").mkdir()
        recorded_run(20, folder / "memory" / "warm-up")  # imports, first-use caches
        memory = peak_memory(400, folder) / peak_memory(200, folder)
        small, large = (recorded_run(n, folder)[1].stat().st_size for n in (100, 200))
        model, _ = recorded_run(400, folder)
    last = dict(model.requests[-1])
    sdk_times, fake_times = [], []
    for _ in range(15):  # interleaved, best of each: a busy machine slows both alike
        seconds, request = serialise_time(last)
        sdk_times.append(seconds)
        fake_times.append(fake_time(model, request))
    ratios = [
        ("peak memory, 400 vs 200 turns", memory, MEMORY_GOAL),
        ("cassette size, 200 vs 100 turns", large / small, SIZE_GOAL),
        ("fake's time per request vs SDK serialisation", best(fake_times) / best(sdk_times),
         FAKE_GOAL),
    ]
    failed = False
    for name, ratio, goal in ratios:
        failed = failed or ratio > goal
        print(judged(name, ratio, goal))
    print(f"cassette sizes: {small:,} and {large:,} bytes; last request "
          f"{len(request.content):,} bytes; SDK {best(sdk_times) * 1e3:.1f} ms, fake "
          f"{best(fake_times) * 1e3:.1f} ms")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
