"""Lesson 12's checker: mask old tool results, keep every pair valid.

    check_mask_old_results(mask_old_results)

`mask_old_results(messages, keep) -> messages`: a new history in which every `tool_result`
block except the last `keep` ones (counted in blocks, not messages) has its content
replaced by a short note (at most 100 characters, none of the old text); `tool_use_id`
and `is_error` stay, no block or message is added or removed, and the list passed in is
not changed. The last check runs the lesson's long task with masking as a loop step.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..core.limits import Limits
from ..core.loop import AgentRun
from ..fake import fake_client
from ..history.rules import check_history
from ..i18n import Message, _
from ..lessons.long_task import log_reader_model, read_log_page_tool
from .common import field_of, first_problem, name_of, raised, text_of
from .scorecard import Check, Scorecard, verdict

PEAK = 2_500
"""With masking from 2,000 input tokens on, keeping 2 results, no request sends more."""


def _history() -> list[dict[str, Any]]:
    """A task, four turns of single calls, and one turn of two parallel calls."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Find the lockout bug."}]
    pages = [[1], [2], [3], [4, 5]]
    for turn in pages:
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n:02d}", "name": "read_log_page",
             "input": {"n": n}} for n in turn]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n:02d}",
             "content": f"page {n} of 12\n" + "INFO login: signed in\n" * 30,
             **({"is_error": True} if n == 2 else {})} for n in turn]})
    return messages


def _results(messages: Any) -> list[Any]:
    return [b for m in messages if field_of(m, "role") == "user"
            and isinstance(field_of(m, "content"), list)
            for b in field_of(m, "content") if field_of(b, "type") == "tool_result"]  # fmt: skip


def _masked(block: Any, original: dict[str, Any]) -> bool:
    text = str(text_of(field_of(block, "content")))
    return len(text) <= 100 and "INFO login" not in text


CASES = (
    Message("keep 3: the last 3 results (across two messages) stay, the older 2 are masked"),
    Message("keep 0 masks every result; keep 10 masks none"),
    Message("every pair stays valid: same blocks, same ids, is_error kept"),
    Message("the history passed in is not changed"),
)


def check_mask_old_results(fn: Callable[[Any, int], Any]) -> Scorecard:
    card = Scorecard(f"check_mask_old_results({name_of(fn)})")
    history = _history()
    before = copy.deepcopy(history)
    try:
        three, none_kept, all_kept = fn(history, 3), fn(_history(), 0), fn(_history(), 10)
    except Exception as e:
        card.extend(Check(name, False, raised(e)) for name in (*CASES, LOOP))
        return card
    old, new = _results(before), _results(three)
    shape = [len(field_of(m, "content")) if isinstance(field_of(m, "content"), list) else 0
             for m in three] if isinstance(three, list) else []  # fmt: skip
    right = (len(new) == 5 and all(_masked(b, o) for b, o in zip(new[:2], old, strict=False))
             and [text_of(field_of(b, "content")) for b in new[2:]]
             == [b["content"] for b in old[2:]])
    card.append(verdict(CASES[0], right, _("results masked: {flags}").format(
        flags=[_masked(b, o) for b, o in zip(new, old, strict=False)])))
    ends = (len(_results(none_kept)) == len(_results(all_kept)) == 5
            and all(_masked(b, o) for b, o in zip(_results(none_kept), old, strict=False))
            and not any(_masked(b, o) for b, o in zip(_results(all_kept), old, strict=False)))
    card.append(verdict(CASES[1], ends, _("keep=0 or keep=10 masked the wrong results")))
    problem = first_problem(three) if isinstance(three, list) else _("not a list")
    same = (shape == [0, 1, 1, 1, 1, 1, 1, 2, 2] and [field_of(b, "tool_use_id") for b in new]
            == [b["tool_use_id"] for b in old]
            and [bool(field_of(b, "is_error")) for b in new] == [False, True, False, False, False])
    card.append(verdict(CASES[2], same and problem is None,
                        problem or _("blocks per message {shape}; ids or is_error changed").format(
                            shape=shape)))
    card.append(verdict(CASES[3], history == before,
                        _("the list passed in was changed; build a new one")))
    card.append(_in_the_loop(fn))
    return card


LOOP = Message("as a loop step: the 12-page task finishes, no request over 2,500 input tokens")


def _in_the_loop(fn: Callable[[Any, int], Any]) -> Check:
    model = log_reader_model()
    run = AgentRun(fake_client(model, max_retries=0), "Find why bob was not locked out.",
                   tools=[read_log_page_tool()], limits=Limits(max_turns=20))
    try:
        while not run.finished:
            turn = run.step()
            if turn is not None and turn.total_input > 2_000:
                run.messages[:] = fn(list(run.messages), 2)
    except Exception as e:
        return Check(LOOP, False, raised(e))
    peak = max((t.total_input for t in run.turns), default=0)
    result = run.result
    errors = [v for v in check_history(run.messages) if v.severity == "error"]
    ok = result is not None and result.done and peak <= PEAK and not errors
    return verdict(LOOP, ok, _("the run ended {status}; the largest request sent {peak:,} "
                               "input tokens").format(status=result, peak=peak))
