"""Lesson 09's checker: a token-budget gate around the SDK's tool runner.

    check_token_gate(run_with_token_budget)

`fn(runner, token_budget) -> (status, tokens_used)`: iterate
`client.beta.messages.tool_runner(...)`, add up every reply's tokens (input, both cache
fields, output; a cache field may be `None`), and let no request go once the total has
reached the budget. Status: `"done"` (end_turn), `"stopped: token_budget"`, or
`"stopped: <stop_reason>"`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from typing import Any

from anthropic import beta_tool

from ..core.loop import MODEL
from ..fake import ScriptedModel, call, fake_client, reply, say
from ..i18n import Message, _
from .common import name_of, raised
from .scorecard import Scorecard, verdict

EACH = {"input_tokens": 11, "cache_creation_input_tokens": 23,  # 100 tokens a turn,
        "cache_read_input_tokens": 29, "output_tokens": 37}     # most in cache fields
NO_CACHE = {"input_tokens": 60, "cache_creation_input_tokens": None,  # the SDK may say None
            "cache_read_input_tokens": None, "output_tokens": 40}  # fmt: skip


@beta_tool
def lookup(key: str) -> str:
    """Look up one setting of the login service. Call it to read a setting's value."""
    return f"{key} = 3"


_RECIPES: weakref.WeakKeyDictionary[Any, tuple[Any, dict[str, Any]]] = (
    weakref.WeakKeyDictionary())


def recipe_of(runner: Any) -> tuple[Any, dict[str, Any]] | None:
    """(client, params) a runner of this checker was made with (its tools: `[lookup]`), so
    the same runner can be made again elsewhere; None for any other object."""
    try:
        return _RECIPES.get(runner)
    except TypeError:  # not weakly referable, or not hashable: not one of ours
        return None


def _run(fn: Callable[[Any, int], Any], budget: int, turns: int,
         usage: Mapping[str, Any]) -> tuple[Any, ...] | str:  # fmt: skip
    """`turns` scripted replies through a runner wrapped by `fn`: (status, used, requests)."""
    script = [reply(call("lookup", key=f"k{i}"), usage=usage) for i in range(turns - 1)]
    model = ScriptedModel([*script, reply(say("done"), usage=usage)])
    client = fake_client(model)
    asked: list[Any] = [{"role": "user", "content": "What is max_attempts?"}]
    runner = client.beta.messages.tool_runner(
        model=MODEL, max_tokens=1024, tools=[lookup], thread=False, messages=asked)
    _RECIPES[runner] = (client, {"model": MODEL, "max_tokens": 1024, "thread": False,
                                 "messages": asked})  # fmt: skip
    try:
        returned = fn(runner, budget)
    except Exception as e:
        return raised(e)
    finally:
        # A runner left suspended mid-run ends its span whenever the garbage collector
        # finalizes it, in whatever context is current then (a test run on CPython 3.11
        # crashed inside ContextVar.set that way); close it now, as the SDK asks of a
        # runner that will not be resumed.
        runner.close()
    if not (isinstance(returned, tuple) and len(returned) == 2):
        return _("returned {value!r}, not a (status, tokens_used) pair").format(value=returned)
    return (*returned, len(model.requests))


Case = tuple[Message, int, int, Mapping[str, Any], tuple[str, int, int]]
CASES: list[Case] = [
    (Message("budget 300 at 100 a turn: stops after reply 3, no 4th request"), 300, 6, EACH,
     ("stopped: token_budget", 300, 3)),
    (Message("budget 301: one token more allows one request more"), 301, 6, EACH,
     ("stopped: token_budget", 400, 4)),
    (Message("a run that ends under budget is done (None cache fields count 0)"), 1_000, 3,
     NO_CACHE, ("done", 300, 3)),
]  # fmt: skip


def check_token_gate(fn: Callable[[Any, int], Any]) -> Scorecard:
    """Budgets at and just above the bound, and a run that ends under budget."""
    card = Scorecard(f"check_token_gate({name_of(fn)})")
    outcomes = [_run(fn, budget, turns, usage) for _name, budget, turns, usage, _want in CASES]
    if all(isinstance(o, str) for o in outcomes) and len(set(outcomes)) == 1:
        card.extend(verdict(name, False, str(outcomes[0])) for name, *_rest in CASES)  # the stub
        return card
    for (name, *_rest, expected), got in zip(CASES, outcomes, strict=True):
        if isinstance(got, str):
            card.append(verdict(name, False, got))
            continue
        status, used, requests = got
        card.append(verdict(name, got == expected,
                            _("got status {status!r} after {requests} requests, counting "
                              "{used!r} tokens").format(status=status, requests=requests,
                                                        used=used)))
    return card
