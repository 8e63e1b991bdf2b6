"""The checker of lesson 11's exercise: the failure museum's loop, repaired.

`check_museum_loop(fn)` runs `fn` once on an honest task and once per exhibit, each time
in the scripted situation that made the museum's loop fail, and returns a `Scorecard`
with one check each. The contract is the museum loop's:

    fn(client, messages, *, tools, server_tools=(), max_turns=10, token_budget=20_000,
       max_repeats=3) -> (status, messages)

`messages`: a new task, or a saved session ending with the user's new message. `tools`:
`@looplab.tool` functions (`t.name`, `t.definition()`, `t(**block.input)`). `server_tools`:
definitions the API runs itself (web search), sent in `tools` as they are. The status is
`"done"`, `"max_turns"`, `"token_budget"`, `"repeated_call"`, or any other `stop_reason`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anthropic

from ..fake import call, pause, reply, say
from ..fake.steps import StepLike
from ..history.dangling import _close_dangling
from ..i18n import Message, _
from ..lessons.demo import task
from .museum_world import (
    BUDGET,
    FINAL,
    WEB_SEARCH,
    World,
    api_error,
    blocks_of,
    field_of,
    last_text,
    one_line,
    tool_results,
)
from .scorecard import Check, Scorecard

__all__ = ["EXHIBITS", "WEB_SEARCH", "check_museum_loop"]


# -- what each exhibit checks besides the status: a hint, or None when all is well ---------


def _honest(world: World, messages: list[Any]) -> str | None:
    wanted = [("run_tests", "login"), ("read_file", "logs/login.log"), ("read_file", "login.py")]
    if world.ran != wanted:
        return _("the tools that ran were {ran}; run each tool_use once, in call order").format(
            ran=world.ran)
    if any(field_of(b, "is_error") for b in tool_results(messages)):
        return _("a call that worked came back with is_error: set it only on calls that failed")
    if last_text(messages) != FINAL:
        return _("append the model's last reply to messages before returning them")
    problem = api_error(messages)
    return _("the history breaks a rule: {problem}").format(problem=problem) if problem else None


def _session_kept(world: World, messages: list[Any]) -> str | None:
    kept = {field_of(b, "id") or field_of(b, "text") for m in messages for b in blocks_of(m)}
    return None if {"toolu_01SavedMidCall", "Sorry, that was me. Go on."} <= kept else (
        _("drop nothing from the saved session: answer the unanswered call "
          "(looplab.close_dangling) and keep the user's message"))


def _repeats_ran(world: World) -> str | None:
    n = world.ran.count(("run_tests", "login"))
    return None if n < 3 else (
        _("run_tests ran {n} times with the same input (it never failed); count every "
          "identical call, failed or not, and stop before the 3rd one runs").format(n=n))


def _three_requests(world: World) -> str | None:
    return None if world.sent == 3 else (
        _("{n} request(s) were sent with max_turns=3: check the limit before each "
          "request and send one only while the requests made < max_turns").format(n=world.sent))


def _resumed(world: World, messages: list[Any]) -> str | None:
    return None if world.sent == 2 and last_text(messages) == FINAL else (
        _("the first reply stopped with pause_turn: the server has not finished, so send "
          "the paused content back unchanged (no tool_result) and ask again"))


def _flag_kept(world: World, messages: list[Any]) -> str | None:
    sent = world.model.requests[1]["messages"] if world.sent > 1 else []
    answers = tool_results(sent[-1:])
    if not answers or answers[0].get("is_error") is not True:
        return _('run_tests raised, but its tool_result has no "is_error": True, so the model '
                 "reads the error as output; keep the flag when you build the block")
    if "no tests for module" not in str(answers[0].get("content")):
        return _("put the error's text in the tool_result's content, so the model can adjust")
    return None


def _one_request(world: World) -> str | None:
    if world.sent == 0:
        return _("no request was sent, but the first one fits in token_budget={budget:,}").format(
            budget=BUDGET)
    if world.sent == 1:
        return None
    body = {k: v for k, v in world.model.requests[1].items() if k != "max_tokens"}
    needed = world.client.messages.count_tokens(**body).input_tokens
    return _("request 2 went out with {needed:,} input tokens, over token_budget={budget:,}: "
             "ask client.messages.count_tokens(...) before each request and stop when "
             "used + needed > token_budget").format(needed=needed, budget=BUDGET)


def _work_returned(world: World, messages: list[Any]) -> str | None:
    if len(tool_results(messages)) < len(world.ran):
        return _("{ran} tool calls ran, but the returned messages hold {results} tool_result "
                 "blocks: return the whole history").format(
            ran=len(world.ran), results=len(tool_results(messages)))
    problem = api_error(_close_dangling(messages))
    if problem is None:
        return None
    return _("the returned history cannot be sent again: {problem}").format(problem=problem)


# -- the exhibits --------------------------------------------------------------------------


def _task() -> list[dict[str, Any]]:
    return [{"role": "user", "content": task()}]


def _session() -> list[dict[str, Any]]:
    """A session saved while run_tests was running, then the user's next message."""
    started = call("run_tests", id="toolu_01SavedMidCall", module="login")
    return [*_task(), {"role": "assistant", "content": [say("Running the tests."), started]},
            {"role": "user", "content": "Sorry, that was me. Go on."}]


def _reads() -> list[StepLike]:
    """A model that reads file after file and would never stop by itself."""
    paths = ("login.py", "logs/login.log", "tests/test_login.py", "pytest.ini", "login.py")
    return [*[reply(call("read_file", path=p)) for p in paths], say("Done.")]


WHY = {
    "done": Message('the last reply is an end_turn, so the run is "done"'),
    "repeated_call": Message('return "repeated_call" when the repeat gate stops the run'),
    "max_turns": Message('return "max_turns" when the turn limit stops the run'),
    "token_budget": Message('return "token_budget" when the budget stops the run'),
}


@dataclass(frozen=True)
class _Exhibit:
    """One scripted situation and what a repaired loop does in it."""

    name: Message
    steps: Callable[[], list[StepLike]]
    status: str
    """The status the repaired loop returns."""
    first: Callable[[World], str | None] = lambda world: None
    """Checked whatever the loop returned or raised (how many requests, which calls ran)."""
    then: Callable[[World, list[Any]], str | None] = lambda world, messages: None
    """Checked on the returned messages once the status is right."""
    history: Callable[[], list[dict[str, Any]]] = _task
    options: Mapping[str, Any] = field(default_factory=dict)
    on_400: str = ""
    """What to do when the API answers 400."""
    raise_ok: bool = False
    """Raising is fine here (how a stop is reported is another exhibit)."""
    on_raise: str = ""
    """What to do when the loop raises (default: report the exception)."""


EXHIBITS: tuple[_Exhibit, ...] = (
    _Exhibit(Message("an honest run still finishes"), lambda: [
        reply(say("Running the login tests."), call("run_tests", module="login")),
        reply(call("read_file", path="logs/login.log"), call("read_file", path="login.py")),
        say(FINAL),
    ], "done", then=_honest),
    _Exhibit(Message("exhibit 1: a session saved mid-call can go on"), lambda: [say(FINAL)], "done",
             then=_session_kept, history=_session,
             on_400=Message("a saved session can end with a call nobody answered: close it "
                            "before sending (looplab.close_dangling)")),
    _Exhibit(Message("exhibit 2: identical calls that work are stopped too"),
             lambda: [*[reply(call("run_tests", module="login")) for _ in range(6)], say("Done.")],
             "repeated_call", first=_repeats_ran),
    _Exhibit(Message("exhibit 3: max_turns=3 sends exactly 3 requests"), _reads, "max_turns",
             first=_three_requests, options={"max_turns": 3}, raise_ok=True),
    _Exhibit(Message("exhibit 4: a paused turn is resumed"), lambda: [
        pause(say("Searching for known lockout bugs."), input={"query": "lockout"}), say(FINAL),
    ], "done", then=_resumed,
        on_400=Message("a server_tool_use is the API's own call: send the paused content back "
                       "unchanged, with no tool_result")),
    _Exhibit(Message("exhibit 5: a failed call comes back with is_error"),
             lambda: [reply(call("run_tests", module="signup")), say("No signup tests.")],
             "done", then=_flag_kept, on_400=Message("is_error is a bool: True or False")),
    _Exhibit(Message("exhibit 6: no request the budget cannot pay for"),
             lambda: [reply(call("read_ci_log")), reply(call("read_file", path="login.py")),
                      say("Done.")],
             "token_budget", first=_one_request, options={"token_budget": BUDGET}),
    _Exhibit(Message("exhibit 7: the turn limit returns the work"), _reads, "max_turns",
             then=_work_returned, options={"max_turns": 2},
             on_raise=Message('return ("max_turns", messages) instead, so the caller keeps '
                              "the work the run did")),
)
"""The honest run, then one scripted situation per exhibit, in the lesson's order."""

DEFAULTS: dict[str, Any] = {"max_turns": 10, "token_budget": 20_000, "max_repeats": 3}


def _judge(exhibit: _Exhibit, world: World, outcome: Any) -> str | None:
    problem = exhibit.first(world)
    if problem is not None:
        return problem
    if isinstance(outcome, anthropic.BadRequestError) and exhibit.on_400:
        return f"{world.explain(outcome)}; {exhibit.on_400}"
    if isinstance(outcome, Exception) and not isinstance(outcome, anthropic.AnthropicError):
        if exhibit.raise_ok:
            return None
        if exhibit.on_raise:
            return _("the loop raised {error}: {what}").format(error=one_line(outcome),
                                                                what=exhibit.on_raise)
    if isinstance(outcome, BaseException):
        return world.explain(outcome)
    if not (isinstance(outcome, tuple) and len(outcome) == 2 and isinstance(outcome[1], list)):
        return _("return (status, messages), like museum_loop")
    status, messages = outcome
    if status != exhibit.status:
        return _("got status {status!r}: {why}").format(status=status, why=WHY[exhibit.status])
    return exhibit.then(world, messages)


def _visit(fn: Callable[..., Any], exhibit: _Exhibit) -> Check:
    world = World(exhibit.steps())
    options = {**DEFAULTS, **exhibit.options}
    try:
        outcome = fn(world.client, exhibit.history(), tools=world.tools,
                     server_tools=[WEB_SEARCH], **options)
    except Exception as e:  # judged like a return value: some exhibits are about raising
        if not world.sent and not isinstance(e, anthropic.AnthropicError):
            return Check(exhibit.name, False, one_line(e))  # e.g. the exercise's stub
        outcome = e
    try:
        problem = _judge(exhibit, world, outcome)
    except Exception as e:  # messages of an unexpected shape
        problem = _("could not read what the loop returned: {error}").format(error=one_line(e))
    return Check(exhibit.name, problem is None, problem or "")


def check_museum_loop(fn: Callable[..., Any]) -> Scorecard:
    """Run `fn` on an honest task and on each exhibit's situation; one check each.

    `fn(client, messages, *, tools, server_tools, max_turns, token_budget, max_repeats)
    -> (status, messages)`, the museum loop's contract (see the module docstring).
    """
    card = Scorecard(f"check_museum_loop({getattr(fn, '__name__', type(fn).__name__)})")
    card.extend(_visit(fn, exhibit) for exhibit in EXHIBITS)
    return card
