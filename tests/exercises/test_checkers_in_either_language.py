"""A checker's verdict depends on what the answer does, never on the language it runs in: the
right answer passes in English and in Chinese, in the lesson and in the grader."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from test_exercise_checkers import run_tool

import looplab
from looplab import ScriptedModel, ToolError, call, fake_client, run_agent, say
from looplab.exercises import check_run_tool
from looplab.i18n import LANGUAGES, _, speaking

REFUSED = "refused: {path!r} contains '..'; only files inside the repository"


@pytest.fixture(autouse=True)
def _back_to_default() -> Iterator[None]:
    yield
    looplab.set_language(None)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_right_run_tool_has_full_marks_in_either_language(language: str) -> None:
    looplab.set_language(language)
    card = check_run_tool(run_tool)
    assert card.passed, str(card)  # in Chinese the sandbox refuses in Chinese: still right


def test_a_tool_error_answered_in_another_language_is_still_wrong() -> None:
    """The checker compares with the tool's own words, not with any text in any language."""
    looplab.set_language("zh-CN")

    def english_refusal(block: Any, tools: Any) -> dict[str, Any]:
        result = run_tool(block, tools)
        if block.input.get("path") == "../secrets.txt":
            result["content"] = REFUSED.format(path="../secrets.txt")
        return result

    card = check_run_tool(english_refusal)
    assert [c.passed for c in card].count(False) == 1 and not card[3].passed


def test_speaking_is_the_language_of_one_thread_and_of_the_tools_it_runs() -> None:
    @looplab.tool
    def read_file(path: str) -> str:
        """Read a file of the repository."""
        raise ToolError(_(REFUSED).format(path=path))

    seen: dict[str, Any] = {}

    def grade(language: str, ready: threading.Barrier) -> None:
        with speaking(language):
            ready.wait(5)  # both threads speak at once, each its own language
            model = ScriptedModel([call("read_file", path="../x"), say("ok")])
            result = run_agent(fake_client(model), "read ../x", tools=[read_file])
            seen[language] = result.messages[2]["content"][0]["content"]

    ready = threading.Barrier(2)
    threads = [threading.Thread(target=grade, args=(lang, ready)) for lang in LANGUAGES]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert seen["en"] == REFUSED.format(path="../x")
    assert seen["zh-CN"] != seen["en"] and "'../x'" in seen["zh-CN"]
    assert "拒绝" in seen["zh-CN"]  # the tool, run in a thread of its own, spoke Chinese
    assert looplab.i18n.current() == "en"  # and the process's language did not change


def test_speaking_refuses_a_language_looplab_does_not_speak() -> None:
    with pytest.raises(ValueError, match="looplab speaks en and zh-CN"), speaking("fr"):
        pass
