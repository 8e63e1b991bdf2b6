"""A clock that only moves when told to, so timing lessons and tests run instantly."""

from __future__ import annotations


class FakeClock:
    """Fake time in seconds. Call it to read the time; `advance` (or `sleep`) moves it.

    Pass the same clock to `fake_client(..., clock=clock)` and to the agent loop: a step's
    `delay_s` then advances this clock instead of sleeping, and the loop's timeout gate
    sees the time pass.
    """

    def __init__(self, start: float = 0.0) -> None:
        self.now = float(start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock cannot go backwards (advance({seconds!r}))")
        self.now += seconds

    def sleep(self, seconds: float) -> None:
        """Same as `advance`: lets the clock stand in where `time.sleep` is expected."""
        self.advance(seconds)

    def __repr__(self) -> str:
        return f"FakeClock(now={self.now!r})"
