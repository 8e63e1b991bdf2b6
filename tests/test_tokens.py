"""The token arithmetic: the article's formula, the fit from a run, caching and compaction."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from looplab import Turn
from looplab.tokens import (
    compare_costs,
    cost_series,
    cumulative_input,
    fit,
    per_call_input,
)


def make_turns(sizes: list[int], *, cached_from: int | None = None) -> list[Turn]:
    """Turns whose calls sent `sizes` tokens; from turn `cached_from` on, half is a cache read."""
    turns, total = [], 0
    for n, size in enumerate(sizes, start=1):
        total += size
        read = size // 2 if cached_from is not None and n >= cached_from else 0
        turns.append(
            Turn(
                index=n,
                messages_sent=2 * n - 1,
                input_tokens=size - read,
                output_tokens=40,
                cache_creation_input_tokens=0,
                cache_read_input_tokens=read,
                cumulative_input=total,
                stop_reason="tool_use",
                content=[],
            )
        )
    return turns


def test_article_numbers() -> None:
    assert cumulative_input(10, 400, 300) == 17_500
    assert cumulative_input(20, 400, 300) == 65_000
    assert cumulative_input(20, 400, 300) / cumulative_input(10, 400, 300) == pytest.approx(
        3.714, abs=1e-3
    )


def test_per_call_input_grows_by_delta() -> None:
    assert [per_call_input(n, 400, 300) for n in (1, 2, 10)] == [400, 700, 3100]


@settings(max_examples=50, deadline=None)
@given(
    N=st.integers(0, 60),
    S=st.integers(0, 10_000),
    delta=st.integers(0, 5_000),
)
def test_cumulative_is_the_sum_of_the_calls(N: int, S: int, delta: int) -> None:
    assert cumulative_input(N, S, delta) == sum(
        per_call_input(n, S, delta) for n in range(1, N + 1)
    )


def test_fit_is_exact_on_exact_data() -> None:
    turns = make_turns([int(per_call_input(n, 400, 300)) for n in range(1, 11)])
    assert fit(turns) == (400.0, 300.0)


def test_fit_counts_cache_reads_as_input() -> None:
    turns = make_turns([int(per_call_input(n, 1200, 250)) for n in range(1, 8)], cached_from=2)
    assert turns[3].input_tokens < turns[3].total_input  # the cache field really is used
    assert fit(turns) == (1200.0, 250.0)


def test_fit_is_least_squares_on_noisy_data() -> None:
    # x = 0, 1, 2; y = 100, 260, 400 → slope 150, intercept 103.33…
    S, delta = fit(make_turns([100, 260, 400]))
    assert delta == pytest.approx(150)
    assert S == pytest.approx(310 / 3)


def test_fit_one_turn_has_no_growth() -> None:
    assert fit(make_turns([812])) == (812.0, 0.0)


def test_fit_without_turns_says_what_to_do() -> None:
    with pytest.raises(ValueError, match="^fit needs at least one turn; run the agent first$"):
        fit([])


def test_plain_series_is_the_formula() -> None:
    plain = cost_series(10, 400, 300)
    assert plain.label == "plain"
    assert plain.sent == tuple(400 + 300 * k for k in range(10))
    assert plain.billed == tuple(float(x) for x in plain.sent)
    assert plain.total == 17_500
    assert plain.cumulative_billed[-1] == 17_500
    assert plain.price(usd_per_mtok=3.0) == pytest.approx(0.0525)


def test_caching_reads_the_previous_prompt_and_writes_the_rest() -> None:
    cached = cost_series(4, 400, 300, caching=True)
    assert cached.label == "caching"
    assert cached.cache_write == (400, 300, 300, 300)
    assert cached.cache_read == (0, 400, 700, 1000)
    assert cached.uncached == (0, 0, 0, 0)
    # turn 1: 1.25 × 400; turn n: 0.1 × previous prompt + 1.25 × 300
    assert cached.billed == pytest.approx((500.0, 415.0, 445.0, 475.0))


def test_caching_prices_are_parameters() -> None:
    cached = cost_series(10, 400, 300, caching=True, read_multiplier=0.05, write_multiplier=2.0)
    assert cached.billed[1] == pytest.approx(0.05 * 400 + 2.0 * 300)
    at_base_price = cost_series(10, 400, 300, caching=True, read_multiplier=1, write_multiplier=1)
    assert at_base_price.total == cost_series(10, 400, 300).total


def test_compaction_summarises_every_k_turns() -> None:
    compacted = cost_series(7, 400, 300, compact_every=3, summary_tokens=500)
    assert compacted.label == "compaction every 3"
    assert compacted.sent == (400, 700, 1000, 500, 800, 1100, 500)
    # the summarising request sends the grown history and is billed to the turn it helps
    assert compacted.summarising == (0, 0, 0, 1300, 0, 0, 1400)
    assert compacted.billed == (400, 700, 1000, 1800, 800, 1100, 1900)


def test_compaction_defaults_to_the_first_request_size() -> None:
    assert cost_series(3, 400, 300, compact_every=1).sent == (400, 400, 400)


def test_caching_with_compaction_misses_the_cache_after_a_summary() -> None:
    both = cost_series(5, 400, 300, caching=True, compact_every=2)
    assert both.label == "caching + compaction every 2"
    assert both.sent == (400, 700, 400, 700, 400)
    # turn 3: summarising request reads 700 and writes 300; the summary itself is new
    assert both.cache_read == (0, 400, 700, 400, 700)
    assert both.cache_write == (400, 300, 300 + 400, 300, 300 + 400)


def test_compare_costs_lists_each_strategy() -> None:
    series = compare_costs(20, 400, 300, compact_every=5)
    assert list(series) == [
        "plain",
        "caching",
        "compaction every 5",
        "caching + compaction every 5",
    ]
    assert series["plain"].total == 65_000
    assert series["caching"].total < series["plain"].total
    assert list(compare_costs(5, 400, 300, caching=False)) == ["plain"]


def test_bad_compaction_interval_is_explained() -> None:
    with pytest.raises(ValueError, match=r"compact_every must be at least 1 .*got 0"):
        cost_series(5, 400, 300, compact_every=0)


@settings(max_examples=100, deadline=None)
@given(
    N=st.integers(0, 40),
    S=st.integers(1, 5_000),
    delta=st.integers(0, 2_000),
    caching=st.booleans(),
    every=st.one_of(st.none(), st.integers(1, 10)),
    summary=st.one_of(st.none(), st.integers(1, 5_000)),
)
def test_billing_parts_cover_every_token_sent(
    N: int, S: int, delta: int, caching: bool, every: int | None, summary: int | None
) -> None:
    s = cost_series(N, S, delta, caching=caching, compact_every=every, summary_tokens=summary)
    assert len(s.sent) == len(s.billed) == N
    for n in range(N):
        parts = s.uncached[n] + s.cache_write[n] + s.cache_read[n]
        assert parts == s.sent[n] + s.summarising[n]
        assert min(s.uncached[n], s.cache_write[n], s.cache_read[n]) >= 0
