"""A long run costs what it carries: the fake keeps one history, not one per request, and
counts each message once. (Speed and memory are measured as ratios in
benchmarks/bench_scale.py, never timed here.)"""

from __future__ import annotations

import pytest

from looplab import Limits, ScriptedModel, call, fake_client, run_agent, say, tool
from looplab.fake import usage

TURNS = 12


@tool
def page(n: int) -> str:
    """Read page n."""
    return f"page {n}: nothing new"


def long_run() -> ScriptedModel:
    model = ScriptedModel([call("page", n=i) for i in range(TURNS - 1)] + [say("done")])
    limits = Limits(max_turns=None, max_repeats=None)
    assert run_agent(fake_client(model), "Read.", tools=[page], limits=limits).done
    return model


def test_requests_share_one_history() -> None:
    model = long_run()
    first, last = model.requests[0]["messages"], model.requests[-1]["messages"]
    assert len(last) == 2 * TURNS - 1
    for earlier in model.requests[:-1]:
        shared = earlier["messages"]
        assert all(a is b for a, b in zip(shared, last, strict=False))
    assert first[0] is last[0]
    assert model.requests[0]["tools"] is model.requests[-1]["tools"]


def test_a_changed_message_is_not_shared() -> None:
    model = ScriptedModel([say("a"), say("b")])
    client = fake_client(model)
    body = {"model": "claude-opus-4-1", "max_tokens": 9}
    client.messages.create(**body, messages=[{"role": "user", "content": "one"}])
    client.messages.create(**body, messages=[{"role": "user", "content": "two"}])
    one, two = (request["messages"][0] for request in model.requests)
    assert one == {"role": "user", "content": "one"} and two["content"] == "two"


def test_each_message_is_counted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[object] = []
    real = usage._message_pieces

    def counting(message: object) -> list[usage._Piece]:
        counted.append(message)
        return real(message)

    monkeypatch.setattr(usage, "_message_pieces", counting)
    long_run()
    # every message of the final history once (1 + 2 per turn), not once per request
    assert len(counted) == 2 * TURNS - 1
