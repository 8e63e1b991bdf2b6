"""Checkers for the lessons' exercises: they run *your* function through the fake API.

Each checker calls the function you wrote in a scripted situation and returns a
`Scorecard`: one named check per rule, ✓ or ✗, and a one-line hint for each ✗. End the
check cell with the call so the notebook shows the card:

    check_agent_loop(run_agent)

Your function may raise anything (a stub raising `NotImplementedError` included): the
card reports it on the checks it spoils, with no traceback. The contracts below are the
ones the exercises ask for.

- `check_tool_results_message(fn)`: `fn(content, results) -> message`. `content` is
  `response.content` of a reply that made three parallel calls (SDK blocks with `.type`,
  `.id`, `.name`, `.input`); `results` maps each call's id to `(output_text, is_error)`.
  Return the one user message that answers them all.
- `check_agent_loop(run_agent)`: `run_agent(client, task, *, tools, max_turns,
  token_budget, timeout_s, max_repeats, clock) -> (status, messages)`, the seed's loop
  with its client, tools and clock passed in. `tools` is a list of `@looplab.tool`
  functions: `t.name`, `t.definition()` for the request's `tools=`, `t(**block.input)` to
  run a call. `clock()` reads the time. Statuses are the seed's: `"done"`,
  `"stopped: max_turns"`, `"stopped: token_budget"`, `"stopped: timeout"`,
  `"stopped: repeated <tool name>"`, and `"stopped: <stop_reason>"` for any other stop.
- `check_close_dangling(fn)`: `fn(messages) -> messages`. `messages` is a list of plain
  dicts in the API's shape; answer every unanswered `tool_use` of the last assistant turn
  with an `is_error` `tool_result`, so the history can be sent again.
- `check_token_formula(fn)`: `fn(n_turns, S, delta) -> int | float`, the input tokens of
  `n_turns` requests in total when the first sends `S` and each turn adds `delta`.

`grade_notebook(path)` runs a whole submitted exercise notebook and scores its check cells,
for grading a folder of submissions with pytest.
"""

from __future__ import annotations

import copy
import html
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import anthropic

from ..core.dangling import close_dangling
from ..core.loop import MODEL
from ..core.rules import check_history
from ..core.tools import Tool, tool
from ..fake import FakeClock, ScriptedModel, ScriptExhausted, fake_client, refuse, reply, say
from ..fake import call as tool_use
from ..fake.steps import StepLike

__all__ = [
    "Check",
    "Scorecard",
    "check_agent_loop",
    "check_close_dangling",
    "check_token_formula",
    "check_tool_results_message",
    "grade_notebook",
]


class Check(NamedTuple):
    """One named check: did it pass, and if not, what to change."""

    name: str
    passed: bool
    hint: str = ""


class Scorecard(list[Check]):
    """The checks of one checker, in order. `passed` is true when every check passed."""

    def __init__(self, title: str, checks: Sequence[Check] = ()) -> None:
        super().__init__(checks)
        self.title = title

    @property
    def passed(self) -> bool:
        return bool(self) and all(c.passed for c in self)

    def summary(self) -> str:
        good = sum(c.passed for c in self)
        if self.passed:
            return f"{self.title}: all {len(self)} checks passed"
        return f"{self.title}: {good} of {len(self)} checks passed"

    def __str__(self) -> str:
        lines = [self.summary()]
        for c in self:
            lines.append(f"✓ {c.name}" if c.passed else f"✗ {c.name} — {c.hint}")
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        cell = "text-align:left;vertical-align:top;padding:2px 8px"  # beats JupyterLab's td rule
        td = f'<td style="{cell}">'
        rows = "".join(
            f'<tr><td style="{cell};color:{"#1a7f37" if c.passed else "#cf222e"}">'
            f"{'✓' if c.passed else '✗'}</td>{td}{html.escape(c.name)}</td>"
            f"{td}{'' if c.passed else html.escape(c.hint)}</td></tr>"
            for c in self
        )
        return (
            f"<p><b>{html.escape(self.summary())}</b></p>"
            f'<table><tbody style="text-align:left">{rows}</tbody></table>'
        )


# -- shared helpers ------------------------------------------------------------------------


def _raised(e: BaseException) -> str:
    """An exception as one line: `KeyError: 'toolu_01'`."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _name(fn: Any) -> str:
    return str(getattr(fn, "__name__", type(fn).__name__))


def _get(block: Any, key: str, default: Any = None) -> Any:
    """A field of a block that may be a dict or an SDK object."""
    if isinstance(block, Mapping):
        return block.get(key, default)
    return getattr(block, key, default)


def _text_of(content: Any) -> Any:
    """A tool_result's content as text when it is text (a string or text blocks)."""
    if isinstance(content, list) and all(_get(b, "type") == "text" for b in content):
        return "".join(str(_get(b, "text", "")) for b in content)
    return content


def _first_problem(messages: Any, tools: Any = None) -> str | None:
    """The first rule a history breaks (errors and warnings alike), as a hint line."""
    found = sorted(check_history(messages, tools=tools), key=lambda v: v.severity != "error")
    if not found:
        return None
    v = found[0]
    return f"{v.message} ({v.hint})"


FILES = {
    "README.md": "# shop\nA small web shop. Run the tests with pytest.\n",
    "src/login.py": "def login(user, password):\n    ...  # the lockout counter never resets\n",
    "logs/test_login.log": "FAILED tests/test_login.py::test_login_lockout - assert 5 == 0\n",
    "tests/test_login.py": "def test_login_lockout():\n    ...\n",
    "src/session.py": "SESSION_TTL_S = 3600\n",
    "src/config.py": "MAX_ATTEMPTS = 5\n",
}
TASK = "Run the login tests; if any fail, find out why."


@dataclass
class _World:
    """One scripted situation: the fake model, its client and clock, and the tools' log."""

    steps: list[StepLike]
    clock: FakeClock = field(default_factory=FakeClock)
    ran: list[tuple[str, str]] = field(default_factory=list)
    """(tool name, argument) of every tool call that really ran."""
    raised: list[BaseException] = field(default_factory=list)
    """Exceptions the tools raised (so one escaping the loop is recognised)."""

    def __post_init__(self) -> None:
        self.model = ScriptedModel(self.steps)
        self.client = fake_client(self.model, clock=self.clock, max_retries=0)
        self.tools = self._make_tools()
        self.definitions = [t.definition() for t in self.tools]

    def _make_tools(self) -> list[Tool]:
        def read_file(path: str) -> str:
            """Read a text file of the repository and return its content."""
            self.ran.append(("read_file", path))
            if path not in FILES:
                self._fail(FileNotFoundError(f"no such file: {path!r}"))
            return FILES[path]

        def run_tests(module: str) -> str:
            """Run the unit tests of one module and return pytest's summary line."""
            self.ran.append(("run_tests", module))
            if module != "login":
                self._fail(ValueError(f"no tests for module {module!r}; modules with tests: login"))
            return "1 failed, 2 passed"

        return [tool(read_file), tool(run_tests)]

    def send(self, messages: list[Any]) -> Any:
        """One request with these messages and the scenario's tools."""
        body: dict[str, Any] = {
            "model": MODEL,
            "max_tokens": 1024,
            "tools": self.definitions,
            "messages": messages,
        }
        return self.client.messages.create(**body)

    def _fail(self, e: BaseException) -> None:
        self.raised.append(e)
        raise e

    def explain(self, e: BaseException, expect: str = "") -> str:
        """A hint for an exception that escaped the learner's function."""
        if isinstance(e, ScriptExhausted):
            status = expect[:-1] + " <tool name>" if expect.endswith("*") else expect
            should = f"returned {status!r}" if status else "stopped"
            return (
                f"the loop sent request {len(self.model.requests)} after the scenario's last "
                f"reply; it should have {should} before"
            )
        if isinstance(e, anthropic.BadRequestError):
            sent = self.model.requests[-1].get("messages") if self.model.requests else None
            problem = _first_problem(sent, self.definitions)
            return f"the API answered 400: {problem or _raised(e)}"
        if any(e is r for r in self.raised):
            return (
                f"the tool's {_raised(e)} escaped the loop: catch it and send it back as a "
                "tool_result with is_error: true"
            )
        return _raised(e)


# -- check_tool_results_message ------------------------------------------------------------


def check_tool_results_message(fn: Callable[[Any, dict[str, tuple[str, bool]]], Any]) -> Scorecard:
    """Check `fn(content, results) -> message`, the user message answering a parallel call.

    `content` is `response.content` with a text block and three `tool_use` blocks;
    `results` is `{tool_use_id: (output_text, is_error)}`, deliberately not in call order.
    """
    names = [
        "one user message",
        "tool_result blocks only",
        "one result per tool_use, ids paired",
        "results in call order",
        "is_error passed through",
        "the tool output is the content",
        "the API accepts the next request",
    ]
    world = _World(
        [
            reply(
                say("I'll read the log and the source, and run the signup tests."),
                tool_use("read_file", path="logs/test_login.log"),
                tool_use("read_file", path="src/login.py"),
                tool_use("run_tests", module="signup"),
            ),
            say("The lockout counter never resets, and signup has no tests."),
        ]
    )
    task: dict[str, Any] = {"role": "user", "content": TASK}
    response = world.send([task])
    calls = [b for b in response.content if b.type == "tool_use"]
    ids = [b.id for b in calls]
    error = "ValueError: no tests for module 'signup'; modules with tests: login"
    outputs = {ids[0]: FILES["logs/test_login.log"], ids[1]: FILES["src/login.py"], ids[2]: error}
    results = {i: (outputs[i], i == ids[2]) for i in reversed(ids)}
    card = Scorecard(f"check_tool_results_message({_name(fn)})")

    try:
        message = fn(list(response.content), dict(results))
    except Exception as e:
        card.extend(Check(n, False, _raised(e)) for n in names)
        return card

    # one message, or (a common mistake) a list of them: judge the blocks either way
    messages = message if isinstance(message, list) else [message]
    if not messages or not all(
        isinstance(m, Mapping) and m.get("role") == "user" and isinstance(m.get("content"), list)
        for m in messages
    ):
        hint = 'return {"role": "user", "content": [...tool_result blocks...]}'
        card.extend(Check(n, False, hint) for n in names)
        return card
    blocks = [b for m in messages for b in m["content"]]
    card.append(
        Check(
            names[0],
            len(messages) == 1,
            "put every tool_result in one user message: split results teach the model to "
            "stop making parallel calls",
        )
    )
    others = [b for b in blocks if _get(b, "type") != "tool_result"]
    card.append(
        Check(
            names[1],
            not others,
            f"found a {_get(others[0], 'type')!r} block; send tool_result blocks only (text "
            "next to them can make the model end its turn)"
            if others
            else "",
        )
    )
    answers = [b for b in blocks if _get(b, "type") == "tool_result"]
    got = [_get(b, "tool_use_id") for b in answers]
    missing = [i for i in ids if i not in got]
    extra = [i for i in got if i not in ids or got.count(i) > 1]
    paired = not missing and not extra
    card.append(
        Check(
            names[2],
            paired,
            f"missing results for {', '.join(missing)}" * bool(missing)
            + ("; " if missing and extra else "")
            + f"unexpected or repeated tool_use_id {', '.join(map(str, extra))}" * bool(extra)
            + "; copy each tool_use block's id into its tool_result's tool_use_id",
        )
    )
    card.append(
        Check(
            names[3],
            paired and got == ids,
            "go through response.content in order (not through results) so result i answers call i"
            if paired
            else "pair the ids first",
        )
    )
    by_id = {_get(b, "tool_use_id"): b for b in answers}
    flags_ok = paired and all(
        (_get(by_id[i], "is_error") is True) == results[i][1]
        and _get(by_id[i], "is_error") in (None, False, True)
        for i in ids
    )
    card.append(
        Check(
            names[4],
            flags_ok,
            f'set "is_error": True on the result of the failed call ({ids[2]}) and on no other'
            if paired
            else "pair the ids first",
        )
    )
    card.append(
        Check(
            names[5],
            paired and all(_text_of(_get(by_id[i], "content")) == outputs[i] for i in ids),
            "put the tool's output text (results[id][0]) in the tool_result's content"
            if paired
            else "pair the ids first",
        )
    )
    try:
        world.send([task, {"role": "assistant", "content": response.content}, *messages])
        card.append(Check(names[6], True))
    except Exception as e:
        card.append(Check(names[6], False, world.explain(e)))
    return card


# -- check_agent_loop ----------------------------------------------------------------------

RunAgent = Callable[..., Any]

USAGE_WITH_CACHE = {
    "input_tokens": 100,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 400,
    "output_tokens": 50,
}
"""Per-reply usage in the token_budget scenario: 550 tokens a turn, 150 without the cache."""


def _reads(*paths: str, **options: Any) -> list[StepLike]:
    """One reply per path, each calling read_file on it."""
    return [reply(tool_use("read_file", path=p), **options) for p in paths]


@dataclass(frozen=True)
class _Scenario:
    name: str
    steps: Callable[[], list[StepLike]]
    expect: str
    """The status the seed returns; a trailing "*" accepts any ending."""
    hint: str
    """What to change when the status is wrong."""
    limits: Mapping[str, Any] = field(default_factory=dict)
    extra: Callable[[_World], str | None] = lambda world: None
    """A further check on what happened; returns a hint when it fails."""

    def status_ok(self, status: Any) -> bool:
        if self.expect.endswith("*"):
            return isinstance(status, str) and status.startswith(self.expect[:-1])
        return bool(status == self.expect)


def _requests_at_most(n: int, gate: str) -> Callable[[_World], str | None]:
    def extra(world: _World) -> str | None:
        sent = len(world.model.requests)
        if sent > n:
            return f"{sent} requests were sent; the {gate} gate should have stopped it after {n}"
        return None

    return extra


def _results_sent(world: _World) -> list[dict[str, Any]]:
    """Every tool_result block of the last request the model received."""
    messages = world.model.requests[-1]["messages"] if world.model.requests else []
    return [
        block
        for m in messages
        if isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def _read_both_files(world: _World) -> str | None:
    if sorted(world.ran) != [("read_file", "logs/test_login.log"), ("read_file", "src/login.py")]:
        return f"the tools that ran were {world.ran}; run each tool_use of the reply once"
    got = [_text_of(b.get("content")) for b in _results_sent(world)]
    if sorted(str(v) for v in got) != sorted([FILES["logs/test_login.log"], FILES["src/login.py"]]):
        return "the tool_result content should be what the tool returned"
    return None


def _no_tool_ran(world: _World) -> str | None:
    if world.ran:
        return "a tool_use cut off by max_tokens may have incomplete input: never run it"
    return None


def _ran_repeats(world: _World) -> str | None:
    n = world.ran.count(("run_tests", "login"))
    if n > 2:
        return f"the identical call ran {n} times; with max_repeats=3 the 3rd must not run"
    return None


def _error_sent_back(world: _World) -> str | None:
    results = _results_sent(world)
    if not results or results[0].get("is_error") is not True:
        return 'the failed call\'s tool_result must carry "is_error": True'
    if "no tests for module" not in str(_text_of(results[0].get("content"))):
        return "put the error's text in the tool_result's content, so the model can adjust"
    return None


_PATHS = (
    "README.md",
    "src/login.py",
    "logs/test_login.log",
    "tests/test_login.py",
    "src/config.py",
)

SCENARIOS: tuple[_Scenario, ...] = (
    _Scenario(
        "done: end_turn after a parallel call",
        lambda: [
            reply(
                say("I'll read the log and the source."),
                tool_use("read_file", path="logs/test_login.log"),
                tool_use("read_file", path="src/login.py"),
            ),
            say("test_login_lockout fails: the lockout counter never resets."),
        ],
        "done",
        'return "done" when stop_reason is "end_turn"',
        extra=_read_both_files,
    ),
    _Scenario(
        "max_turns: at most max_turns requests",
        lambda: [*_reads(*_PATHS), say("Done.")],
        "stopped: max_turns",
        'after max_turns requests, return "stopped: max_turns" without sending another',
        {"max_turns": 3},
        _requests_at_most(3, "max_turns"),
    ),
    _Scenario(
        "token_budget: cache tokens count too",
        lambda: [*_reads(*_PATHS[:4], usage=USAGE_WITH_CACHE), reply(say("Done."))],
        "stopped: token_budget",
        "add input_tokens + cache_creation_input_tokens + cache_read_input_tokens + "
        'output_tokens (each `or 0`) and return "stopped: token_budget" once the budget is used',
        {"token_budget": 1000},
        _requests_at_most(2, "token_budget"),
    ),
    _Scenario(
        "timeout: the clock is read before each request",
        lambda: [*_reads(*_PATHS[:4], delay_s=40), reply(say("Done."), delay_s=40)],
        "stopped: timeout",
        'measure time with the clock you are given (clock()) and return "stopped: timeout" '
        "once timeout_s have passed",
        {"timeout_s": 60},
        _requests_at_most(2, "timeout"),
    ),
    _Scenario(
        "repeated calls: the max_repeats-th identical call stops",
        lambda: [*[reply(tool_use("run_tests", module="login")) for _ in range(4)], say("Done.")],
        "stopped: repeated*",
        'count each (name, canonical JSON input) call and return "stopped: repeated <name>" '
        "when one reaches max_repeats",
        {"max_repeats": 3},
        _ran_repeats,
    ),
    _Scenario(
        "max_tokens: a cut-off reply is not done",
        lambda: [
            reply(
                say("I'll read the"),
                tool_use("read_file", path="src/login.py"),
                stop_reason="max_tokens",
            ),
            say("Done."),
        ],
        "stopped: max_tokens",
        'only "end_turn" is done: any stop_reason other than end_turn and tool_use must '
        'return "stopped: <stop_reason>"',
        extra=_no_tool_ran,
    ),
    _Scenario(
        "refusal: a refused reply is not done",
        lambda: [refuse(), say("Done.")],
        "stopped: refusal",
        'only "end_turn" is done: a refusal must return "stopped: refusal"',
    ),
    _Scenario(
        "tool error: sent back as is_error, the loop goes on",
        lambda: [
            reply(tool_use("run_tests", module="signup")),
            say("There are no tests for signup; only login has tests."),
        ],
        "done",
        "catch the tool's exception, send it back as a tool_result with is_error: true, "
        "and keep looping",
        extra=_error_sent_back,
    ),
)
"""One scripted situation per gate and per stop_reason, in the order shown."""

DEFAULT_LIMITS = {"max_turns": 10, "token_budget": 200_000, "timeout_s": 300, "max_repeats": 3}


def _run_scenario(run_agent: RunAgent, scenario: _Scenario) -> Check:
    world = _World(scenario.steps())
    limits = {**DEFAULT_LIMITS, **scenario.limits}
    try:
        returned = run_agent(world.client, TASK, tools=world.tools, clock=world.clock, **limits)
    except Exception as e:
        return Check(scenario.name, False, world.explain(e, scenario.expect))
    if not (isinstance(returned, tuple) and len(returned) == 2):
        return Check(scenario.name, False, "return (status, messages), like the seed's run_agent")
    status, messages = returned
    if not scenario.status_ok(status):
        return Check(scenario.name, False, f"got {status!r}: {scenario.hint}")
    if not isinstance(messages, list):
        return Check(scenario.name, False, "return the messages list itself as the 2nd item")
    try:  # a stop right after a tool_use leaves it unanswered; that part is allowed
        closed = close_dangling(messages)
    except Exception:
        closed = messages
    problem = _first_problem(closed, world.definitions)
    if problem is not None:
        return Check(scenario.name, False, f"history: {problem}")
    problem = scenario.extra(world)
    return Check(scenario.name, problem is None, problem or "")


def check_agent_loop(run_agent: RunAgent) -> Scorecard:
    """Run `run_agent` once per scenario of `SCENARIOS`; check its status and history.

    The contract (the seed's loop with its dependencies passed in):
    `run_agent(client, task, *, tools, max_turns, token_budget, timeout_s, max_repeats,
    clock) -> (status, messages)`.
    """
    card = Scorecard(f"check_agent_loop({_name(run_agent)})")
    card.extend(_run_scenario(run_agent, s) for s in SCENARIOS)
    return card


# -- check_close_dangling ------------------------------------------------------------------


def _histories() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(a history ending in an unanswered parallel call, a complete one)."""
    first_round: list[dict[str, Any]] = [
        {"role": "user", "content": TASK},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Running the login tests."},
                {"type": "tool_use", "id": "toolu_01", "name": "run_tests",
                 "input": {"module": "login"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "1 failed, 2 passed"}
            ],
        },
    ]  # fmt: skip
    dangling: list[dict[str, Any]] = [
        *first_round,
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I'll read the log and the source."},
                {"type": "tool_use", "id": "toolu_02", "name": "read_file",
                 "input": {"path": "logs/test_login.log"}},
                {"type": "tool_use", "id": "toolu_03", "name": "read_file",
                 "input": {"path": "src/login.py"}},
            ],
        },
    ]  # fmt: skip
    complete: list[dict[str, Any]] = [
        *first_round,
        {"role": "assistant", "content": [{"type": "text", "text": "One test fails."}]},
    ]
    return dangling, complete


def check_close_dangling(fn: Callable[[list[dict[str, Any]]], Any]) -> Scorecard:
    """Check `fn(messages) -> messages`, which answers the last turn's unanswered calls."""
    names = [
        "answers every dangling tool_use",
        "one user message right after, in call order",
        'each result has "is_error": True and a reason',
        "earlier messages untouched",
        "a complete history comes back unchanged",
        "running it twice changes nothing more",
        "the API accepts the closed history",
    ]
    card = Scorecard(f"check_close_dangling({_name(fn)})")
    dangling, complete = _histories()
    try:
        closed = fn(copy.deepcopy(dangling))
        again = fn(copy.deepcopy(closed)) if isinstance(closed, list) else None
        kept = fn(copy.deepcopy(complete))
    except Exception as e:
        card.extend(Check(n, False, _raised(e)) for n in names)
        return card
    if not isinstance(closed, list) or not isinstance(kept, list):
        card.extend(
            Check(n, False, "return the messages list (a new one or the same)") for n in names
        )
        return card

    problem = _first_problem(closed)
    card.append(Check(names[0], problem is None, problem or ""))
    follow = closed[4] if len(closed) > 4 and isinstance(closed[4], Mapping) else {}
    content = follow.get("content")
    blocks: list[Any] = content if isinstance(content, list) else []
    results = [b for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_result"]
    order_ok = (
        len(closed) == 5
        and follow.get("role") == "user"
        and [b.get("tool_use_id") for b in results] == ["toolu_02", "toolu_03"]
    )
    card.append(
        Check(
            names[1],
            order_ok,
            "append one user message holding a tool_result for toolu_02, then toolu_03",
        )
    )
    flags_ok = bool(results) and all(
        b.get("is_error") is True and str(_text_of(b.get("content")) or "").strip() for b in results
    )
    card.append(
        Check(
            names[2],
            flags_ok,
            'give each result "is_error": True and a content saying why the call was not run',
        )
    )
    card.append(
        Check(
            names[3],
            closed[:4] == dangling,
            "keep the messages you were given as they are; only add the missing results",
        )
    )
    card.append(
        Check(
            names[4],
            kept == complete,
            "when the last assistant message has no unanswered tool_use, change nothing",
        )
    )
    card.append(
        Check(
            names[5],
            again == closed,
            "on an already closed history, add nothing (check which ids already have results)",
        )
    )
    world = _World([say("Resuming.")])
    try:
        world.send(closed)
        card.append(Check(names[6], True))
    except Exception as e:
        card.append(Check(names[6], False, world.explain(e)))
    return card


# -- check_token_formula -------------------------------------------------------------------


def check_token_formula(fn: Callable[[int, float, float], Any]) -> Scorecard:
    """Check `fn(n_turns, S, delta)`: the input tokens of `n_turns` requests in total."""
    hint = "request n sends S + (n-1)·Δ; add that up for n = 1..N: N·S + Δ·N(N-1)/2"
    cases = [
        ("one turn sends S", (1, 400, 300), 400),
        ("no turns send nothing", (0, 400, 300), 0),
        ("the seed: 10 turns send 17,500", (10, 400, 300), 17_500),
        ("the seed: 20 turns send 65,000", (20, 400, 300), 65_000),
        ("Δ = 0: every turn sends S", (7, 400, 0), 2_800),
    ]
    card = Scorecard(f"check_token_formula({_name(fn)})")
    for name, args, want in cases:
        try:
            got = fn(*args)
            ok = isinstance(got, (int, float)) and math.isclose(got, want, abs_tol=1e-6)
            why = f"got {got!r} for fn{args}, expected {want:,}: {hint}"
        except Exception as e:
            ok, why = False, _raised(e)
        card.append(Check(name, ok, "" if ok else why))
    # the sum itself, over a grid: catches formulas tuned to the seed's numbers
    name = "matches adding S + (n-1)Δ turn by turn"
    try:
        wrong = next(
            (
                (n, s, d)
                for n in range(1, 31)
                for s, d in ((1000, 0), (250, 75), (3, 7))
                if not math.isclose(fn(n, s, d), sum(s + (k - 1) * d for k in range(1, n + 1)))
            ),
            None,
        )
        card.append(Check(name, wrong is None, f"wrong for fn{wrong}: {hint}" if wrong else ""))
    except Exception as e:
        card.append(Check(name, False, _raised(e)))
    return card


# -- grading a submission ------------------------------------------------------------------

CHECK_TAG = "check"
_SUMMARY = re.compile(r"^(\S+\(.*\)): (all \d+ checks passed|\d+ of \d+ checks passed)$")


def grade_notebook(path: str | Path, *, timeout_s: float = 120) -> Scorecard:
    """Run a student's exercise notebook top to bottom in a fresh kernel; score its checks.

    Every cell tagged `check` (the exercise copies tag all of theirs) is one check. It
    passes when it raised nothing and every scorecard it showed passed. Needs `nbclient`
    (installed with looplab's `test` extra).

        card = grade_notebook("submissions/ada/05_stop_gates.ipynb")
        assert card.passed, card
    """
    try:
        import nbformat
        from nbclient import NotebookClient
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "grade_notebook needs nbclient and nbformat: pip install 'looplab[test]'"
        ) from e
    path = Path(path)
    nb = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    NotebookClient(
        nb,
        timeout=timeout_s,
        allow_errors=True,  # a failing check must not stop the checks after it
        interrupt_on_timeout=True,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    card = Scorecard(f"grade_notebook({path.name})")
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and CHECK_TAG in cell.metadata.get("tags", []):
            card.append(_grade_cell(index, cell))
    return card


def _grade_cell(index: int, cell: Any) -> Check:
    name = f"cell {index}"
    problems: list[str] = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            problems.append(f"{output.get('ename')}: {output.get('evalue')}".splitlines()[0])
            continue
        text = output.get("text") or output.get("data", {}).get("text/plain") or ""
        lines = (text if isinstance(text, str) else "".join(text)).splitlines()
        for i, line in enumerate(lines):
            found = _SUMMARY.match(line)
            if found is None:
                continue
            name = f"cell {index}: {found.group(1)}"
            if not found.group(2).startswith("all "):
                wrong = next((x for x in lines[i + 1 :] if x.startswith("✗ ")), "")
                problems.append(f"{found.group(2)}" + (f"; first: {wrong[2:]}" if wrong else ""))
    if cell.get("execution_count") is None:
        problems.append("the cell did not run")
    return Check(name, not problems, "; ".join(problems))
