"""Checkers for the lessons' exercises: they run *your* function through the fake API.

Each checker calls the function you wrote in scripted situations and returns a
`Scorecard`: one named check per rule, ✓ or ✗, and a one-line hint for each ✗ saying what
went wrong. End the check cell with the call so the notebook shows the card:

    check_agent_loop(run_agent)

Your function may raise anything: the card reports it on the checks it spoils, with no
traceback, and a stub that is not written yet shows as one line. One module per lesson
holds its checker and states the contract it checks:

| lesson | checker | module |
|---|---|---|
| 01 | `check_answer(answer)` | `one_call` |
| 02 | `check_tool_results_message(fn)` | `results_message` |
| 03 | `check_next_action(fn)` | `fork` |
| 04 | `check_agent_loop(run_agent)` | `agent_loop` |
| 05 | `check_close_dangling(fn)` | `dangling` |
| 06 | `check_token_budget(size_budget)` (and `check_token_formula(fn)`) | `budget` |
| 07 | `check_run_tool(run_tool)` | `run_tool` |
| 08 | `check_gate_test(test, agent)` | `repeat_gate` |
| 09 | `check_token_gate(fn)` | `runner` |
| 10 | `check_next_reply(next_reply)` | `next_reply` |
| 12 | `check_mask_old_results(mask_old_results)` | `masking` |
| 13 | `check_mcp_answer(answer_with_mcp)` | `mcp_answer` |
| 14 | `check_delegate(make_delegate)` | `delegate` |
| 15 | `check_permission_gate(gate)` | `permissions` |
| 16 | `check_eval_metrics(eval_metrics)` | `eval_metrics` |
| 17 | `check_memory_gate(memory_gate)` | `memory_gate` |
| 18 | `check_plan_then_act(plan_then_act)` | `plan_act` |
| 19 | `check_stream_turn(stream_turn)` | `streaming` |
| 20 | `check_scoped_tool(make_get_invoice)` | `scoped_tool` |
| 21 | `check_path_metrics(path_metrics)` | `path_metrics` |
| 22 | `check_code_result(code_result)` | `code_result` |

Grading a class's notebooks is `looplab.grading` (`looplab-grade`), which imports these
checkers; they never import it.
"""

from __future__ import annotations

from .agent_loop import check_agent_loop
from .budget import check_token_budget, check_token_formula
from .code_result import check_code_result
from .dangling import check_close_dangling
from .delegate import check_delegate
from .eval_metrics import check_eval_metrics
from .fork import check_next_action
from .masking import check_mask_old_results
from .mcp_answer import check_mcp_answer
from .memory_gate import check_memory_gate
from .museum import check_museum_loop
from .next_reply import check_next_reply
from .one_call import check_answer
from .path_metrics import check_path_metrics
from .permissions import check_permission_gate
from .plan_act import check_plan_then_act
from .repeat_gate import check_gate_test
from .results_message import check_tool_results_message
from .run_tool import check_run_tool
from .runner import check_token_gate
from .scoped_tool import check_scoped_tool
from .scorecard import Check, Scorecard
from .streaming import check_stream_turn

__all__ = [
    "Check",
    "Scorecard",
    "check_agent_loop",
    "check_answer",
    "check_close_dangling",
    "check_code_result",
    "check_delegate",
    "check_eval_metrics",
    "check_gate_test",
    "check_next_action",
    "check_mask_old_results",
    "check_mcp_answer",
    "check_memory_gate",
    "check_museum_loop",
    "check_next_reply",
    "check_path_metrics",
    "check_permission_gate",
    "check_plan_then_act",
    "check_run_tool",
    "check_scoped_tool",
    "check_stream_turn",
    "check_token_budget",
    "check_token_formula",
    "check_token_gate",
    "check_tool_results_message",
]
