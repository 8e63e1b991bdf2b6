"""Lesson 16's checker: the numbers of an eval.

    check_eval_metrics(eval_metrics)

`eval_metrics(outcomes) -> dict`: `outcomes` maps each task's name to its k trials, each a
`(passed, tokens)` pair (every task has the same k). Return
`{"success_rate": …, "pass_at_k": …, "pass_hat_k": …, "tokens_per_success": …}`: the share
of all trials that passed; the share of tasks with at least one passing trial; the share
of tasks whose k trials all passed; every token of every trial divided by the number of
passing trials (`None` when none passed).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ..i18n import Message
from .common import name_of, numbers_check
from .scorecard import Scorecard

Case = tuple[Message, dict[str, list[tuple[bool, int]]], dict[str, Any]]
CASES: list[Case] = [
    (Message("3 tasks, 4 trials: one always, one sometimes, one never passes"),
     {"a": [(True, 100)] * 4, "b": [(True, 200), (False, 300), (True, 200), (False, 300)],
      "c": [(False, 50)] * 4},
     {"success_rate": 6 / 12, "pass_at_k": 2 / 3, "pass_hat_k": 1 / 3,
      "tokens_per_success": 1_600 / 6}),
    (Message("pass^k is not the success rate to the k-th power"),
     {"a": [(True, 10), (True, 10)], "b": [(False, 10), (False, 10)]},
     {"success_rate": 0.5, "pass_at_k": 0.5, "pass_hat_k": 0.5, "tokens_per_success": 20}),
    (Message("no trial passed: tokens_per_success is None"),
     {"a": [(False, 40)] * 3},
     {"success_rate": 0.0, "pass_at_k": 0.0, "pass_hat_k": 0.0, "tokens_per_success": None}),
    (Message("failed trials' tokens count in the cost of a success"),
     {"a": [(True, 100), (False, 900)]},
     {"success_rate": 0.5, "pass_at_k": 1.0, "pass_hat_k": 0.0, "tokens_per_success": 1_000}),
]  # fmt: skip


def check_eval_metrics(fn: Callable[[Any], Any]) -> Scorecard:
    card = Scorecard(f"check_eval_metrics({name_of(fn)})")
    for name, outcomes, want in CASES:
        trials = {task: list(tried) for task, tried in outcomes.items()}
        card.append(numbers_check(name, partial(fn, trials), want))
    return card
