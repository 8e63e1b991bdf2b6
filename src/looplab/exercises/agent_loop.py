"""Lesson 04's checker: the article's loop with its four gates, written by you.

    check_agent_loop(run_agent)

`run_agent(client, task, *, tools, max_turns, token_budget, timeout_s, max_repeats, clock)
-> (status, messages)`: the article's loop with its client, tools and clock passed in.
`tools` is a list of `@looplab.tool` functions (`t.name`, `t.definition()`, `t(**input)`);
`clock()` reads the time. Statuses are the article's: `"done"`, `"stopped: max_turns"`,
`"stopped: token_budget"`, `"stopped: timeout"`, `"stopped: repeated <tool name>"`, and
`"stopped: <stop_reason>"` for any other stop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..fake import call as tool_use
from ..fake import refuse, reply, say
from ..fake.steps import StepLike
from ..history.dangling import _close_dangling
from ..i18n import Message, _
from .common import FILES, TASK, World, first_problem, name_of, text_of
from .scorecard import Check, Scorecard

RunAgent = Callable[..., Any]

USAGE_WITH_CACHE = {
    "input_tokens": 100,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 400,
    "output_tokens": 50,
}
"""Per-reply usage in the token_budget scenario: 550 tokens a turn, 150 without the cache."""

DEFAULT_LIMITS = {"max_turns": 10, "token_budget": 200_000, "timeout_s": 300, "max_repeats": 3}
_PATHS = ("README.md", "src/login.py", "logs/test_login.log", "tests/test_login.py",
          "src/config.py")  # fmt: skip


def _reads(*paths: str, **options: Any) -> list[StepLike]:
    """One reply per path, each calling read_file on it."""
    return [reply(tool_use("read_file", path=p), **options) for p in paths]


@dataclass(frozen=True)
class Scenario:
    """One scripted situation, the status the article's loop returns in it, and why."""

    name: Message
    steps: Callable[[], list[StepLike]]
    expect: str
    """The expected status; a trailing "*" accepts any ending."""
    situation: Message
    """What happens in the scenario, shown when the status is wrong."""
    limits: Mapping[str, Any] = field(default_factory=dict)
    extra: Callable[[World], str | None] = lambda world: None
    """A further check on what happened; returns a hint when it fails."""

    def status_ok(self, status: Any) -> bool:
        if self.expect.endswith("*"):
            return isinstance(status, str) and status.startswith(self.expect[:-1])
        return bool(status == self.expect)


def _requests_at_most(n: int, gate: str) -> Callable[[World], str | None]:
    def extra(world: World) -> str | None:
        sent = len(world.model.requests)
        if sent > n:
            return _("{sent} requests were sent; the {gate} gate should have stopped it "
                     "after {n}").format(sent=sent, gate=gate, n=n)
        return None

    return extra


def _results_sent(world: World) -> list[dict[str, Any]]:
    """Every tool_result block of the last request the model received."""
    messages = world.model.requests[-1]["messages"] if world.model.requests else []
    return [
        block
        for m in messages
        if isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def _read_both_files(world: World) -> str | None:
    if sorted(world.ran) != [("read_file", "logs/test_login.log"), ("read_file", "src/login.py")]:
        return _("the tools that ran were {ran}, but the reply asked for each file once").format(
            ran=world.ran)
    got = [text_of(b.get("content")) for b in _results_sent(world)]
    if sorted(str(v) for v in got) != sorted([FILES["logs/test_login.log"], FILES["src/login.py"]]):
        return _("a tool_result's content is not what the tool returned")
    return None


def _no_tool_ran(world: World) -> str | None:
    if world.ran:
        return _("a tool ran although the reply that asked for it was cut off by max_tokens "
                 "(its input may be incomplete)")
    return None


def _ran_repeats(world: World) -> str | None:
    n = world.ran.count(("run_tests", "login"))
    if n > 2:
        return _("the identical call ran {n} times with max_repeats=3").format(n=n)
    return None


def _error_sent_back(world: World) -> str | None:
    results = _results_sent(world)
    if not results or results[0].get("is_error") is not True:
        return _("the failed call's tool_result is not marked as an error")
    if "no tests for module" not in str(text_of(results[0].get("content"))):
        return _("the failed call's tool_result does not say what went wrong")
    return None


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        Message("done: end_turn after a parallel call"),
        lambda: [
            reply(say("I'll read the log and the source."),
                  tool_use("read_file", path="logs/test_login.log"),
                  tool_use("read_file", path="src/login.py")),
            say("test_login_lockout fails: the lockout counter never resets."),
        ],
        "done", Message("the model's second reply ended with end_turn"), extra=_read_both_files,
    ),
    Scenario(
        Message("max_turns: at most max_turns requests"),
        lambda: [*_reads(*_PATHS), say("Done.")], "stopped: max_turns",
        Message("the model keeps calling tools, and max_turns=3"), {"max_turns": 3},
        _requests_at_most(3, "max_turns"),
    ),
    Scenario(
        Message("token_budget: cache tokens count too"),
        lambda: [*_reads(*_PATHS[:4], usage=USAGE_WITH_CACHE), reply(say("Done."))],
        "stopped: token_budget",
        Message("every reply's usage adds up to 550 tokens, 400 of them read from the cache; "
                "the budget is 1,000"), {"token_budget": 1000},
        _requests_at_most(2, "token_budget"),
    ),
    Scenario(
        Message("timeout: the clock is read before each request"),
        lambda: [*_reads(*_PATHS[:4], delay_s=40), reply(say("Done."), delay_s=40)],
        "stopped: timeout",
        Message("every reply takes 40 s on the clock the checker passes in; timeout_s=60"),
        {"timeout_s": 60}, _requests_at_most(2, "timeout"),
    ),
    Scenario(
        Message("repeated calls: the max_repeats-th identical call stops"),
        lambda: [*[reply(tool_use("run_tests", module="login")) for _ in range(4)], say("Done.")],
        "stopped: repeated*",
        Message("the model asks for run_tests with module 'login' four times; max_repeats=3"),
        {"max_repeats": 3}, _ran_repeats,
    ),
    Scenario(
        Message("max_tokens: a cut-off reply is not done"),
        lambda: [
            reply(say("I'll read the"), tool_use("read_file", path="src/login.py"),
                  stop_reason="max_tokens"),
            say("Done."),
        ],
        "stopped: max_tokens", Message("the first reply stopped with stop_reason max_tokens"),
        extra=_no_tool_ran,
    ),
    Scenario(
        Message("refusal: a refused reply is not done"),
        lambda: [refuse(), say("Done.")], "stopped: refusal",
        Message("the first reply stopped with stop_reason refusal"),
    ),
    Scenario(
        Message("tool error: sent back as is_error, the loop goes on"),
        lambda: [
            reply(tool_use("run_tests", module="signup")),
            say("There are no tests for signup; only login has tests."),
        ],
        "done", Message("run_tests raised ValueError for module 'signup', then the model ended "
                        "its answer with end_turn"), extra=_error_sent_back,
    ),
)  # fmt: skip
"""One scripted situation per gate and per stop_reason, in the order shown."""


def _run_scenario(run_agent: RunAgent, scenario: Scenario) -> Check:
    world = World(scenario.steps())
    limits = {**DEFAULT_LIMITS, **scenario.limits}
    try:
        returned = run_agent(world.client, TASK, tools=world.tools, clock=world.clock, **limits)
    except Exception as e:
        return Check(scenario.name, False, world.explain(e, scenario.expect))
    if not (isinstance(returned, tuple) and len(returned) == 2):
        return Check(scenario.name, False,
                     _("returned {type}, not a (status, messages) pair").format(
                         type=type(returned).__name__))
    status, messages = returned
    if not scenario.status_ok(status):
        expect = scenario.expect.replace("*", " <tool name>")
        return Check(scenario.name, False,
                     _("got {status!r}, expected {expect!r}: {situation}").format(
                         status=status, expect=expect, situation=scenario.situation))
    if not isinstance(messages, list):
        return Check(scenario.name, False,
                     _("the second item returned is not the messages list"))
    try:  # a stop right after a tool_use leaves it unanswered; that part is allowed
        closed = _close_dangling(messages)
    except Exception:
        closed = messages
    problem = first_problem(closed, world.definitions)
    if problem is not None:
        return Check(scenario.name, False, _("history: {problem}").format(problem=problem))
    problem = scenario.extra(world)
    return Check(scenario.name, problem is None, problem or "")


def check_agent_loop(run_agent: RunAgent) -> Scorecard:
    """Run `run_agent` once per scenario of `SCENARIOS`; check its status and history."""
    card = Scorecard(f"check_agent_loop({name_of(run_agent)})")
    card.extend(_run_scenario(run_agent, s) for s in SCENARIOS)
    return card
