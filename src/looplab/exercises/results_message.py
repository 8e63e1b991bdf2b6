"""Lesson 02's checker: the one user message that answers a parallel call.

    check_tool_results_message(tool_results_message)

`fn(content, results) -> message`: `content` is `response.content` of a reply that made
three parallel calls (SDK blocks with `.type`, `.id`, `.name`, `.input`); `results` maps
each call's id to `(output_text, is_error)`, deliberately not in call order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..fake import call as tool_use
from ..fake import reply, say
from ..i18n import Message, _
from .common import FILES, TASK, World, field_of, name_of, raised, text_of
from .scorecard import Check, Scorecard, verdict

NAMES = [
    Message("one user message"),
    Message("tool_result blocks only"),
    Message("one result per tool_use, ids paired"),
    Message("results in call order"),
    Message("is_error passed through"),
    Message("the tool output is the content"),
    Message("the API accepts the next request"),
]
ERROR = "ValueError: no tests for module 'signup'; modules with tests: login"


def _world() -> World:
    return World([
        reply(
            say("I'll read the log and the source, and run the signup tests."),
            tool_use("read_file", path="logs/test_login.log"),
            tool_use("read_file", path="src/login.py"),
            tool_use("run_tests", module="signup"),
        ),
        say("The lockout counter never resets, and signup has no tests."),
    ])


def check_tool_results_message(fn: Callable[[Any, dict[str, tuple[str, bool]]], Any]) -> Scorecard:
    """Check `fn(content, results) -> message`, the user message answering a parallel call."""
    world = _world()
    task: dict[str, Any] = {"role": "user", "content": TASK}
    response = world.send([task])
    ids = [b.id for b in response.content if b.type == "tool_use"]
    outputs = {ids[0]: FILES["logs/test_login.log"], ids[1]: FILES["src/login.py"], ids[2]: ERROR}
    results = {i: (outputs[i], i == ids[2]) for i in reversed(ids)}
    card = Scorecard(f"check_tool_results_message({name_of(fn)})")
    try:
        message = fn(list(response.content), dict(results))
    except Exception as e:
        card.extend(Check(n, False, raised(e)) for n in NAMES)
        return card
    # one message, or (a common mistake) a list of them: judge the blocks either way
    messages = message if isinstance(message, list) else [message]
    if not messages or not all(
        isinstance(m, Mapping) and m.get("role") == "user" and isinstance(m.get("content"), list)
        for m in messages
    ):
        why = _("got {type}, not a user message whose content is a list of blocks").format(
            type=type(message).__name__)
        card.extend(Check(n, False, why) for n in NAMES)
        return card
    card.extend(_judge(messages, ids, outputs, results))
    try:
        world.send([task, {"role": "assistant", "content": response.content}, *messages])
        card.append(Check(NAMES[6], True))
    except Exception as e:
        card.append(Check(NAMES[6], False, world.explain(e)))
    return card


def _judge(
    messages: list[Any], ids: list[str], outputs: dict[str, str],
    results: dict[str, tuple[str, bool]],
) -> list[Check]:
    blocks = [b for m in messages for b in m["content"]]
    others = [b for b in blocks if field_of(b, "type") != "tool_result"]
    answers = [b for b in blocks if field_of(b, "type") == "tool_result"]
    got = [field_of(b, "tool_use_id") for b in answers]
    missing = [i for i in ids if i not in got]
    extra = [str(i) for i in got if i not in ids or got.count(i) > 1]
    paired = not missing and not extra
    by_id = {field_of(b, "tool_use_id"): b for b in answers}
    flags_ok = paired and all(
        field_of(by_id[i], "is_error") in (None, False, True)
        and (field_of(by_id[i], "is_error") is True) == results[i][1]
        for i in ids
    )
    texts_ok = paired and all(text_of(field_of(by_id[i], "content")) == outputs[i] for i in ids)
    unpaired = _("the ids are not paired yet (see above)")
    return [
        verdict(NAMES[0], len(messages) == 1,
              _("the results came in {n} user messages: split results teach the model to stop "
                "making parallel calls").format(n=len(messages))),
        verdict(NAMES[1], not others,
              _("found a {type!r} block next to the results (text next to them can make the "
                "model answer with an empty end_turn)").format(type=field_of(others[0], "type"))
              if others else ""),
        verdict(NAMES[2], paired,
              "; ".join(filter(None, [
                  _("no result for {ids}").format(ids=", ".join(missing)) if missing else "",
                  _("unexpected or repeated tool_use_id {ids}").format(ids=", ".join(extra))
                  if extra else "",
              ]))),
        verdict(NAMES[3], paired and got == ids,
              _("the results are not in the order of the calls in content")
              if paired else unpaired),
        verdict(NAMES[4], flags_ok,
              _("a result's is_error does not say whether its call failed")
              if paired else unpaired),
        verdict(NAMES[5], texts_ok,
              _("a result's content is not the output text its call produced")
              if paired else unpaired),
    ]  # fmt: skip
