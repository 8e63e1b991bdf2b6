"""The history-rule probes: small requests that each break one rule (or show its fix).

Each probe is one request body without `model`; `conformance` sends them (and the
feature probes, `feature_probes.py`) to an endpoint and to the fake and compares the
answers. The five rules are the article's: 1 pairing,
2 parallel results together, 3 `tool_result` first, 4 assistant content whole, 5 tool
errors are results too. "shape" probes break the request's form instead.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..history.dangling import _close_dangling

Body = dict[str, Any]
Message = dict[str, Any]
Send = Callable[[Body], Any]
"""Sends a setup request to the endpoint under test and returns its reply (a `Message`, or
a `BetaMessage` for a body with `betas`)."""

TOOLS: list[Body] = [
    {"name": "run_tests", "description": "Run the unit tests of one module.",
     "input_schema": {"type": "object", "properties": {"module": {"type": "string"}},
                      "required": ["module"]}},
    {"name": "read_file", "description": "Read a text file of the repository.",
     "input_schema": {"type": "object", "properties": {"path": {"type": "string"}},
                      "required": ["path"]}},
]
THINKING: Body = {"type": "enabled", "budget_tokens": 1024}

TASK: Message = {"role": "user", "content": "Run the login tests; if any fail, find out why."}
CALL: Message = {"role": "assistant", "content": [
    {"type": "text", "text": "I'll run the login tests."},
    {"type": "tool_use", "id": "toolu_01ProbeRunTests", "name": "run_tests",
     "input": {"module": "login"}},
]}
RESULT: Message = {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_01ProbeRunTests",
     "content": "1 failed: test_login_lockout; 2 passed"},
]}
PARALLEL: Message = {"role": "assistant", "content": [
    {"type": "text", "text": "Reading the log and the source."},
    {"type": "tool_use", "id": "toolu_01ProbeReadLog", "name": "read_file",
     "input": {"path": "logs/login.log"}},
    {"type": "tool_use", "id": "toolu_01ProbeReadSrc", "name": "read_file",
     "input": {"path": "login.py"}},
]}
LOG: Message = {"type": "tool_result", "tool_use_id": "toolu_01ProbeReadLog",
       "content": "WARN lockout counter=5 never reset"}
SOURCE: Message = {"type": "tool_result", "tool_use_id": "toolu_01ProbeReadSrc",
          "content": "def login(user, password): ..."}
BOTH: Message = {"role": "user", "content": [LOG, SOURCE]}
FAILED: Message = {"type": "tool_result", "tool_use_id": "toolu_01ProbeRunTests",
          "content": "FileNotFoundError: tests/test_login.py"}


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


def user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def body(messages: list[dict[str, Any]], *, thinking: bool = False) -> Body:
    """A probe request: the probe tools, few output tokens (more with thinking on)."""
    request: Body = {"max_tokens": 64, "tools": TOOLS, "messages": messages}
    if thinking:
        request.update(max_tokens=2048, thinking=THINKING)
    return request


@dataclass(frozen=True)
class Probe:
    """One request to send; `build(send)` returns its body, or a reason it cannot be made.

    A body with `betas` goes to the beta endpoint. `setups` is how many requests `build`
    sends first; `effect`, if set, says what the server did to an accepted request (see
    `feature_probes`)."""

    name: str
    rule: str
    what: str
    build: Callable[[Send], Body | str]
    setups: int = 0
    effect: Callable[[Any], str] | None = None


def fixed(messages: list[dict[str, Any]], *, thinking: bool = False) -> Callable[[Send], Body]:
    return lambda send: body(copy.deepcopy(messages), thinking=thinking)


def modified_thinking(send: Send) -> Body | str:
    """Ask for a reply that thinks and calls a tool; send it back with its thinking edited."""
    reply = send(body([TASK], thinking=True))
    blocks = [block.to_dict() for block in reply.content]
    calls = [block for block in blocks if block.get("type") == "tool_use"]
    thoughts = [block for block in blocks if block.get("type") == "thinking"]
    if not calls or not thoughts:
        kinds = ", ".join(str(block.get("type")) for block in blocks) or "no blocks"
        return f"the setup reply had no thinking block and tool_use to edit ({kinds})"
    thoughts[0]["thinking"] = str(thoughts[0]["thinking"]) + " (edited)"
    results = [{"type": "tool_result", "tool_use_id": c["id"], "content": "1 failed"}
               for c in calls]
    return body([TASK, {"role": "assistant", "content": blocks}, user(*results)], thinking=True)


FORGED: Message = {"role": "assistant", "content": [
    {"type": "thinking", "thinking": "The tests come first.",
     "signature": "Zm9yZ2VkIHNpZ25hdHVyZQ=="},
    CALL["content"][1],
]}

RULE_PROBES: tuple[Probe, ...] = (
    Probe("valid_transcript", "-", "the article's transcript, every rule kept",
          fixed([TASK, CALL, RESULT, PARALLEL, BOTH])),
    Probe("text_instead_of_result", "1", "the call answered in words, not with a tool_result",
          fixed([TASK, CALL, user(text("The tests ran: 1 failed."))])),
    Probe("message_between", "1", "a user message between the call and its result",
          fixed([TASK, CALL, user(text("Please be quick.")), RESULT])),
    Probe("dangling_tool_use", "1", "a stopped run sent again, ending with its unanswered call",
          fixed([TASK, CALL])),
    Probe("dangling_closed", "1", "the same run after close_dangling answered the call",
          fixed(_close_dangling([TASK, CALL], "the run stopped before this call was made"))),
    Probe("partial_results", "2", "one of two parallel calls answered",
          fixed([TASK, CALL, RESULT, PARALLEL, user(LOG)])),
    Probe("split_results", "2", "each parallel result in its own user message (merged)",
          fixed([TASK, CALL, RESULT, PARALLEL, user(LOG), user(SOURCE)])),
    Probe("text_before_results", "3", "text first, then the tool_result blocks",
          fixed([TASK, CALL, RESULT, PARALLEL, user(text("Here are both."), LOG, SOURCE)])),
    Probe("text_after_results", "3", "the tool_result blocks, then text (accepted)",
          fixed([TASK, CALL, RESULT, PARALLEL, user(LOG, SOURCE, text("Here are both."))])),
    Probe("assistant_text_only", "4", "only the text of the reply kept, its call dropped",
          fixed([TASK, {"role": "assistant", "content": "I'll run the login tests."}, RESULT])),
    Probe("thinking_modified", "4", "the endpoint's own thinking block edited, sent back",
          modified_thinking, setups=1),
    Probe("thinking_forged", "4", "a thinking block with a made-up signature",
          fixed([TASK, FORGED, RESULT], thinking=True)),
    Probe("is_error_string", "5", 'a failed call answered with "is_error": "true" (a string)',
          fixed([TASK, CALL, user({**FAILED, "is_error": "true"})])),
    Probe("error_result", "5", "a failed call answered with is_error: true (accepted)",
          fixed([TASK, CALL, user({**FAILED, "is_error": True})])),
    Probe("tool_role", "shape", 'the result sent with role "tool"',
          fixed([TASK, CALL, {"role": "tool", "content": RESULT["content"]}])),
    Probe("duplicate_ids", "shape", "two parallel calls with one id",
          fixed([TASK, {"role": "assistant", "content": [
              PARALLEL["content"][1], {**PARALLEL["content"][2], "id": "toolu_01ProbeReadLog"}]},
              user(LOG)])),
    Probe("first_is_assistant", "shape", "the history starts with an assistant message",
          fixed([{"role": "assistant", "content": "Hello."}, TASK])),
)
