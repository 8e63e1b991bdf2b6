"""check_museum_loop (lesson 11): the repaired loop passes, and every bug or wrong fix fails
the exhibit it belongs to, through the real SDK and the fake API."""

from __future__ import annotations

import json
from typing import Any

import pytest

import looplab
from looplab.exercises.museum import BUDGET, EXHIBITS, check_museum_loop
from looplab.history.dangling import not_run

EXHIBIT_COUNT = 7
USAGE = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")


class MaxTurnsExceeded(Exception):
    pass


class Loop:
    """The lesson's loop with the bugs of the exhibits in `bugs` left in (all seven: the
    museum's loop; none: the repaired one), or with one plausible `wrong` fix."""

    __name__ = "loop"

    def __init__(self, bugs: frozenset[int] = frozenset(), wrong: str | None = None) -> None:
        self.bugs, self.wrong = bugs, wrong

    def __call__(self, client: Any, messages: list[Any], *, tools: list[Any],
                 server_tools: Any = (), max_turns: int = 10, token_budget: int = 20_000,
                 max_repeats: int = 3) -> Any:
        request = {"model": looplab.MODEL, "max_tokens": 1024,
                   "tools": [t.definition() for t in tools] + list(server_tools)}
        messages = self.reopen(messages)
        used, turns, last_input, seen = 0, 0, 0, {}
        while True:
            if 3 not in self.bugs and turns >= max_turns - (self.wrong == "one_turn_short"):
                return self.stop_at_limit(messages)
            if 6 in self.bugs:  # only what was spent, never the next request's size
                over = used >= token_budget
            else:
                body = {k: v for k, v in request.items() if k != "max_tokens"}
                needed = (last_input if self.wrong == "guess_next_size" else
                          client.messages.count_tokens(**body, messages=messages).input_tokens)
                over = used + needed > token_budget
            if over:
                return "token_budget", messages
            response = client.messages.create(**request, messages=messages)
            used += sum(getattr(response.usage, name) or 0 for name in USAGE)
            last_input, turns = response.usage.input_tokens, turns + 1
            messages.append({"role": "assistant", "content": response.content})
            if response.stop_reason == "pause_turn" and 4 not in self.bugs:
                if self.wrong == "answer_server_tool":
                    messages.append({"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": b.id, "content": "searched"}
                        for b in response.content if b.type == "server_tool_use"]})
                continue
            calls = [b for b in response.content if b.type == "tool_use"]
            if not calls:
                return "done", messages
            if 3 in self.bugs and turns > max_turns:
                return self.stop_at_limit(messages)
            results = self.answer(calls, {t.name: t for t in tools}, seen, max_repeats)
            if results is None:
                return "repeated_call", messages
            messages.append({"role": "user", "content": results})

    def reopen(self, messages: list[Any]) -> list[Any]:
        if self.wrong == "results_after_text":  # answer a dangling call at the very end
            calls = [b for m in messages[-2:-1] if m["role"] == "assistant"
                     for b in m["content"] if b["type"] == "tool_use"]
            return [*messages, {"role": "user", "content": [
                not_run(b["id"], "interrupted") for b in calls]}] if calls else messages
        return messages if 1 in self.bugs else looplab.close_dangling(messages)

    def stop_at_limit(self, messages: list[Any]) -> tuple[str, list[Any]]:
        if 7 in self.bugs:
            raise MaxTurnsExceeded("max turns exceeded")
        return "max_turns", messages

    def answer(self, calls: list[Any], by_name: dict[str, Any], seen: dict[Any, int],
               max_repeats: int) -> list[dict[str, Any]] | None:
        """The tool_result of each call, or None when the repeat gate stops the run."""
        results = []
        for block in calls:
            key = (block.name, json.dumps(block.input, sort_keys=True))
            if 2 not in self.bugs:
                seen[key] = seen.get(key, 0) + 1
                if seen[key] > max_repeats - (self.wrong != "repeat_one_late"):
                    return None
            try:
                output, failed = str(by_name[block.name](**block.input)), False
            except Exception as e:
                output, failed = f"{type(e).__name__}: {e}", True
            if 2 in self.bugs and failed:
                seen[key] = seen.get(key, 0) + 1
                if seen[key] >= max_repeats:
                    return None
            result = {"type": "tool_result", "tool_use_id": block.id, "content": output}
            if 5 not in self.bugs:
                result["is_error"] = "true" if self.wrong == "is_error_text" and failed else failed
            results.append(result)
        return results


def failed(card: Any) -> list[str]:
    return [c.name for c in card if not c.passed]


def hint(card: Any, exhibit: int) -> str:
    return str(card[exhibit].hint)


def test_the_repaired_loop_passes_every_check() -> None:
    card = check_museum_loop(Loop())
    assert card.passed, str(card)
    assert len(card) == 1 + EXHIBIT_COUNT
    assert str(card).startswith("check_museum_loop(loop): all 8 checks passed")


def test_the_museum_loop_fails_every_exhibit_but_finishes_an_honest_run() -> None:
    card = check_museum_loop(Loop(frozenset(range(1, EXHIBIT_COUNT + 1))))
    assert card[0].passed, str(card)
    assert failed(card) == [e.name for e in EXHIBITS[1:]]
    assert "the API answered 400: messages.1: `tool_use` ids were found without" in hint(card, 1)
    assert "run_tests ran 6 times" in hint(card, 2)
    assert hint(card, 3).startswith("4 request(s) were sent with max_turns=3")
    assert "pause_turn" in hint(card, 4)
    assert 'no "is_error": True' in hint(card, 5)
    assert hint(card, 6).startswith("request 2 went out with 3,525 input tokens")
    assert hint(card, 7).startswith("the loop raised MaxTurnsExceeded: max turns exceeded")


@pytest.mark.parametrize("bug", range(1, EXHIBIT_COUNT + 1))
def test_each_bug_fails_its_own_exhibit_and_no_other(bug: int) -> None:
    card = check_museum_loop(Loop(frozenset({bug})))
    assert failed(card) == [EXHIBITS[bug].name], str(card)


@pytest.mark.parametrize(
    ("wrong", "exhibit", "says"),
    [
        # the results go after the user's new text: the call is still unanswered
        ("results_after_text", 1, "`tool_use` ids were found without `tool_result` blocks"),
        ("repeat_one_late", 2, "run_tests ran 3 times"),  # `>` where `>=` belongs
        ("one_turn_short", 3, "2 request(s) were sent with max_turns=3"),
        ("answer_server_tool", 4, "unexpected `tool_use_id` found in `tool_result` blocks"),
        ("is_error_text", 5, "is_error: Input should be a valid boolean"),
        ("guess_next_size", 6, "request 2 went out"),  # the last request's size as a guess
    ],
)
def test_a_plausible_wrong_fix_fails_with_a_hint_that_names_it(
    wrong: str, exhibit: int, says: str
) -> None:
    card = check_museum_loop(Loop(wrong=wrong))
    assert EXHIBITS[exhibit].name in failed(card), str(card)
    assert says in hint(card, exhibit)


def test_the_budget_fits_request_one_and_not_request_two() -> None:
    # The exhibit only tells a pre-flight from a guess if the numbers sit on both sides.
    clock = looplab.FakeClock()
    model = looplab.ScriptedModel(EXHIBITS[6].steps())
    result = looplab.run_agent(looplab.fake_client(model, clock=clock), "x", clock=clock,
                               tools=_tools(), limits=looplab.Limits(token_budget=None))
    first, second = result.turns[0], result.turns[1]
    assert first.input_tokens + first.output_tokens < BUDGET < second.input_tokens
    assert second.input_tokens > 2 * first.input_tokens  # a guess from request 1 lets 2 through


def _tools() -> list[looplab.Tool]:
    from looplab.exercises.museum_world import World

    return World([]).tools


def test_a_stub_fails_every_check_with_its_own_message() -> None:
    def fixed_loop(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("start from museum_loop's body")

    card = check_museum_loop(fixed_loop)
    assert not any(c.passed for c in card)
    assert {c.hint for c in card} == {"NotImplementedError: start from museum_loop's body"}


def test_a_loop_that_returns_the_wrong_shape_is_told_what_to_return() -> None:
    card = check_museum_loop(lambda client, messages, **kwargs: "done")
    assert not card.passed
    assert card[0].hint == "return (status, messages), like museum_loop"
