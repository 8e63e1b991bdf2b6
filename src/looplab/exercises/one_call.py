"""Lesson 01's checker: answer one `tool_use` block with the user message that carries its result.

    check_answer(answer)

`answer(response, tools) -> message`: `response` is what `client.messages.create`
returned, with one `tool_use` block; `tools` maps each tool name to a function to call
with the block's `input`. Return the `user` message to send next.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..core.loop import MODEL
from ..fake import ScriptedModel, call, fake_client, say
from ..i18n import Message, _
from .common import TASK, create, first_problem, name_of, raised
from .scorecard import Check, Scorecard, verdict

CALL_ID = "toolu_01CheckAnswerXk2Lq7"
OUTPUT = "..F\nFAILED tests/test_login.py::test_login_lockout\n1 failed, 2 passed"
NAMES = [
    Message("one user message"),
    Message("one tool_result block"),
    Message("tool_use_id copied from the call"),
    Message("the tool ran once; its output is the content"),
    Message("the API accepts the next request"),
]
DEFINITION = {
    "name": "run_tests",
    "description": "Run the unit tests of one module and return pytest's output.",
    "input_schema": {"type": "object", "properties": {"module": {"type": "string"}},
                     "required": ["module"]},
}  # fmt: skip


def check_answer(answer: Callable[[Any, Mapping[str, Callable[..., Any]]], Any]) -> Scorecard:
    """Call `answer` on a freshly scripted response, check its message and send it."""
    model = ScriptedModel([[say("Running the tests."), call("run_tests", module="login",
                                                            id=CALL_ID)], say("Thanks.")])
    client = fake_client(model, max_retries=0)
    request: dict[str, Any] = {"model": MODEL, "max_tokens": 1024, "tools": [DEFINITION]}
    task: dict[str, Any] = {"role": "user", "content": TASK}
    response = create(client, {**request, "messages": [task]})
    ran: list[dict[str, Any]] = []

    def run_tests(**input: Any) -> str:
        ran.append(input)
        return OUTPUT

    card = Scorecard(f"check_answer({name_of(answer)})")
    try:
        message = answer(response, {"run_tests": run_tests})
    except Exception as e:
        card.extend(Check(n, False, raised(e)) for n in NAMES)
        return card
    card.extend(_judge(message, ran))
    try:
        create(client, {**request, "messages": [
            task, {"role": "assistant", "content": response.content}, message]})
        card.append(Check(NAMES[4], True))
    except Exception as e:
        sent = model.requests[-1]["messages"] if len(model.requests) > 1 else None
        card.append(Check(NAMES[4], False, first_problem(sent) or raised(e)))
    return card


def _judge(message: Any, ran: list[dict[str, Any]]) -> list[Check]:
    blocks = message.get("content") if isinstance(message, Mapping) else None
    one = blocks[0] if isinstance(blocks, list) and len(blocks) == 1 else None
    result = one if isinstance(one, Mapping) else {}
    is_user = isinstance(message, Mapping) and message.get("role") == "user"
    shape = (_("the content holds {n} blocks").format(n=len(blocks)) if isinstance(blocks, list)
             else _("the content is not a list of blocks"))
    runs = (_("run_tests ran {n} times").format(n=len(ran)) if len(ran) != 1
            else _("the content is not what run_tests returned"))
    return [
        verdict(NAMES[0], is_user and isinstance(blocks, list),
              _("returned {type} with role {role!r}").format(
                  type=type(message).__name__, role=_role(message))),
        verdict(NAMES[1], result.get("type") == "tool_result",
              shape if one is None else _("the block's type is {type!r}").format(
                  type=result.get("type"))),
        verdict(NAMES[2], result.get("tool_use_id") == CALL_ID,
              _("tool_use_id {id!r} is not the id of the call in this response").format(
                  id=result.get("tool_use_id"))),
        verdict(NAMES[3], len(ran) == 1 and result.get("content") == OUTPUT, runs),
    ]  # fmt: skip


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, Mapping) else None
