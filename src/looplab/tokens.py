"""Why long runs get expensive: every request re-sends the whole history.

If the first request sends `S` input tokens and each turn adds `Δ` to the history, call
`n` sends `S + (n−1)Δ` and N calls send `N·S + Δ·N(N−1)/2` in total, which grows with
the square of N. `fit` finds S and Δ from a real run, and `cost_series`/`compare_costs`
show what prompt caching and compaction change about the bill.

Prices are parameters: costs come out in *base-price input tokens* (a cache read of 1,000
tokens at `read_multiplier=0.1` costs 100), so multiply by your model's price per token
to get money. Only input is modelled; output tokens are the same in every strategy.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from .core.result import Turn
from .i18n import Message

__all__ = [
    "CostSeries",
    "compare_costs",
    "cost_series",
    "cumulative_input",
    "fit",
    "per_call_input",
]


def per_call_input(n: int, S: float, delta: float) -> float:
    """Input tokens sent by call `n` (1-based): `S + (n−1)Δ`."""
    return S + (n - 1) * delta


def cumulative_input(N: int, S: float, delta: float) -> float:
    """Input tokens sent by the first `N` calls together: `N·S + Δ·N(N−1)/2`."""
    return N * S + delta * N * (N - 1) / 2

# looplab's own reference, kept where a graded kernel drops the public name (grading/hiding.py)
_cumulative_input = cumulative_input


def fit(turns: Iterable[Turn]) -> tuple[float, float]:
    """Estimate `(S, Δ)` from a run's turns by least squares on each call's total input.

    Total input is `Turn.total_input` (input plus both cache fields). Data that follow the
    formula exactly give S and Δ back exactly. One turn gives `(its input, 0.0)`.
    """
    points = [(t.index - 1, t.total_input) for t in turns]
    if not points:
        raise ValueError("fit needs at least one turn; run the agent first")
    if len(points) == 1:
        return float(points[0][1]), 0.0
    xs, ys = zip(*points, strict=True)
    if len(set(xs)) == 1:
        raise ValueError(f"fit needs turns with different indexes, got only turn {xs[0] + 1}")
    delta, S = statistics.linear_regression(xs, ys)
    return S, delta


@dataclass(frozen=True)
class CostSeries:
    """What each call of a run sends and what it is billed, one entry per turn.

    `sent` is the prompt size of each call (what `Turn.total_input` would show). A turn
    that compacts also pays for the request that writes the summary (`summarising`).
    The three billing parts add up to `sent + summarising` on every turn.
    """

    label: str
    sent: tuple[int, ...]
    summarising: tuple[int, ...]
    uncached: tuple[int, ...]
    cache_write: tuple[int, ...]
    cache_read: tuple[int, ...]
    read_multiplier: float = 0.1
    write_multiplier: float = 1.25

    @property
    def billed(self) -> tuple[float, ...]:
        """Each turn's input cost in base-price input tokens."""
        return tuple(
            u + self.write_multiplier * w + self.read_multiplier * r
            for u, w, r in zip(self.uncached, self.cache_write, self.cache_read, strict=True)
        )

    @property
    def cumulative_billed(self) -> tuple[float, ...]:
        total, out = 0.0, []
        for b in self.billed:
            total += b
            out.append(total)
        return tuple(out)

    @property
    def total(self) -> float:
        """The whole run's input cost in base-price input tokens."""
        return sum(self.billed)

    def price(self, usd_per_mtok: float) -> float:
        """The whole run's input cost in money, given the model's base input price."""
        return self.total * usd_per_mtok / 1_000_000


def _requests(
    N: int, S: float, delta: float, compact_every: int | None, summary_tokens: float
) -> list[list[tuple[int, bool]]]:
    """For each of N turns, its requests as (prompt size, extends the previous prompt)."""
    turns: list[list[tuple[int, bool]]] = []
    prompt = S
    for n in range(1, N + 1):
        if n == 1:
            turns.append([(round(prompt), False)])
            continue
        prompt += delta
        if compact_every and (n - 1) % compact_every == 0:
            # the grown history goes to a summarising request; the call sends the summary
            turns.append([(round(prompt), True), (round(summary_tokens), False)])
            prompt = summary_tokens
        else:
            turns.append([(round(prompt), True)])
    return turns


def _split_by_price(
    requests: list[list[tuple[int, bool]]], caching: bool
) -> tuple[list[int], list[int], list[int]]:
    """Each turn's input tokens as (uncached, cache write, cache read)."""
    uncached: list[int] = []
    write: list[int] = []
    read: list[int] = []
    previous = 0  # the last request's prompt: what the cache holds
    for turn in requests:
        u = w = r = 0
        for size, extends in turn:
            if not caching:
                u += size
            elif extends:
                r, w = r + previous, w + size - previous
            else:
                w += size
            previous = size
        uncached.append(u)
        write.append(w)
        read.append(r)
    return uncached, write, read


def cost_series(
    N: int,
    S: float,
    delta: float,
    *,
    caching: bool = False,
    compact_every: int | None = None,
    summary_tokens: float | None = None,
    read_multiplier: float = 0.1,
    write_multiplier: float = 1.25,
) -> CostSeries:
    """Per-turn input and cost of N calls under one strategy.

    - Plain: every call sends its whole prompt at the base price.
    - `caching=True`: a cache breakpoint on the last block of every request (5-minute
      cache, calls less than 5 minutes apart). A prompt that extends the previous one reads
      that one from the cache (`read_multiplier`) and writes only what is new
      (`write_multiplier`); any other prompt is written whole. The API's minimum cacheable
      length is ignored.
    - `compact_every=k`: after every k calls the history is summarised; the next call sends
      `summary_tokens` (default: `S`, the first request's size) and grows by Δ again. The
      summarising request sends the grown history and is billed to that turn.
    """
    if N < 0:
        raise ValueError(f"N must be 0 or more, got {N}")
    if compact_every is not None and compact_every < 1:
        raise ValueError(
            f"compact_every must be at least 1 (or None for no compaction), got {compact_every}"
        )
    summary = S if summary_tokens is None else summary_tokens
    requests = _requests(N, S, delta, compact_every, summary)

    uncached, write, read = _split_by_price(requests, caching)
    label = _strategy(caching, compact_every)
    return CostSeries(
        label=label,
        sent=tuple(turn[-1][0] for turn in requests),
        summarising=tuple(turn[0][0] if len(turn) > 1 else 0 for turn in requests),
        uncached=tuple(uncached),
        cache_write=tuple(write),
        cache_read=tuple(read),
        read_multiplier=read_multiplier,
        write_multiplier=write_multiplier,
    )


def _strategy(caching: bool, compact_every: int | None) -> Message:
    """A strategy's name: English as a key ("caching + compaction every 5"), shown in the
    learner's language."""
    cached = Message("caching")
    if not compact_every:
        return cached if caching else Message("plain")
    compacted = Message("compaction every {k}", k=compact_every)
    return Message("{first} + {second}", first=cached, second=compacted) if caching else compacted


def compare_costs(
    N: int,
    S: float,
    delta: float,
    *,
    caching: bool = True,
    compact_every: int | None = None,
    summary_tokens: float | None = None,
    read_multiplier: float = 0.1,
    write_multiplier: float = 1.25,
) -> dict[str, CostSeries]:
    """Plain next to caching and/or compaction (and both together), keyed by label."""
    variants: list[tuple[bool, int | None]] = [(False, None)]
    if caching:
        variants.append((True, None))
    if compact_every:
        variants.append((False, compact_every))
        if caching:
            variants.append((True, compact_every))
    series = [
        cost_series(
            N,
            S,
            delta,
            caching=c,
            compact_every=k,
            summary_tokens=summary_tokens,
            read_multiplier=read_multiplier,
            write_multiplier=write_multiplier,
        )
        for c, k in variants
    ]
    return {s.label: s for s in series}
