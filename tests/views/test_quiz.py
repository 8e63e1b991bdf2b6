"""looplab.quiz: the true/false quiz, driven like a reader would, without a kernel."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from looplab.views.quiz import LESSONS, STATEMENTS, Quiz, Statement, verdict

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

WRONG_CLAIMS_OF_THE_ISSUE = [
    "The model executes the tool.",
    "The API remembers the conversation between requests.",
    "Tool results go in a message with the role `tool`.",
    "Any stop is a finish: when the model stops, the task is done.",
    "A turn limit makes a token budget unnecessary.",
    "Token cost grows linearly with the number of turns.",
]


def test_the_common_wrong_statements_are_all_there_and_false() -> None:
    by_text = {s.text: s for s in STATEMENTS}
    for text in WRONG_CLAIMS_OF_THE_ISSUE:
        assert by_text[text].true is False


def test_statements_are_well_formed() -> None:
    assert len({s.text for s in STATEMENTS}) == len(STATEMENTS)
    assert {True, False} == {s.true for s in STATEMENTS}
    for s in STATEMENTS:
        assert s.lesson in LESSONS
        assert s.reason.endswith(".") and "\n" not in s.reason
        assert s.text.count("`") % 2 == 0 and s.reason.count("`") % 2 == 0


PLANNED_LESSONS = [
    "01_one_request_one_response",
    "02_the_message_list_is_the_state",
    "03_stop_reason_is_the_fork",
    "04_the_loop_by_hand",
    "05_stop_gates",
    "06_token_growth",
    "07_tools_that_fail_safely",
    "08_testing_an_agent_with_a_scripted_model",
    "09_the_sdk_tool_runner",
]


def test_pointer_titles_match_the_lesson_files() -> None:
    stems = [f"{n}_" + re.sub(r"[ ,]+", "_", title).lower() for n, title in LESSONS.items()]
    assert stems == PLANNED_LESSONS
    for stem in stems:  # lessons land in their own time: check the ones already written
        found = [p.stem for p in NOTEBOOKS.glob(f"{stem[:3]}*.ipynb")]
        assert found in ([], [stem])


def test_pointer_text() -> None:
    assert STATEMENTS[0].pointer == "(lesson 01: one request, one response)"


def test_chinese_pointers_give_each_chinese_lessons_own_title_in_full_width_brackets() -> None:
    import looplab

    titles = {p.name[:2]: p.read_text(encoding="utf-8") for p in
              (NOTEBOOKS / "zh-CN").glob("[0-9][0-9]_*.ipynb")}
    looplab.set_language("zh-CN")
    try:
        for s in STATEMENTS:
            match = re.fullmatch(r"（第 (\d\d) 课：(.+)）", s.pointer)
            assert match, s.pointer
            assert f"# {match[1]} · {match[2]}" in titles[match[1]], s.pointer
    finally:
        looplab.set_language(None)


def test_unanswered_quiz_shows_every_statement_and_no_verdict() -> None:
    quiz = Quiz()
    assert len(quiz.buttons) == len(quiz.verdicts) == len(STATEMENTS)
    assert all(b.value is None for b in quiz.buttons)
    assert all(v.value == "" for v in quiz.verdicts)
    assert quiz.score.value == f"<b>Score: 0 right</b> (0 of {len(STATEMENTS)} answered)"
    assert [b.options for b in quiz.buttons[:1]] == [(("True", True), ("False", False))]


def test_clicking_the_right_answer_shows_the_verdict_reason_and_lesson() -> None:
    quiz = Quiz()
    quiz.buttons[0].value = False  # what a click on "False" does
    assert quiz.verdicts[0].value == (
        '<div style="line-height: 1.4;">'
        '<span style="color:#1a7f37"><b>✓ Right: it is false.</b></span> The model only '
        "writes a <code>tool_use</code> block (name, input, id); your code runs the tool and "
        "sends back a <code>tool_result</code>. <i>(lesson 01: one request, one response)</i>"
        "</div>"
    )
    assert quiz.score.value == f"<b>Score: 1 right</b> (1 of {len(STATEMENTS)} answered)"
    assert quiz.verdicts[1].value == ""  # other rows untouched


def test_the_wrong_answer_says_so_and_changing_it_updates_the_score() -> None:
    quiz = Quiz()
    quiz.answer(0, True)
    assert quiz.verdicts[0].value.startswith(
        '<div style="line-height: 1.4;"><span style="color:#cf222e">'
        "<b>✗ Not quite: it is false.</b></span> "
    )
    assert quiz.right == 0
    quiz.answer(0, False)
    assert "✓ Right" in quiz.verdicts[0].value and quiz.right == 1
    assert quiz.answers[0] is False


def test_the_chosen_answer_is_marked_and_the_row_coloured() -> None:
    quiz = Quiz()
    assert quiz.rows[0].layout.border_left == "4px solid transparent"
    quiz.answer(0, True)  # wrong
    assert quiz.rows[0].layout.border_left == "4px solid #cf222e"
    quiz.answer(0, False)
    assert quiz.rows[0].layout.border_left == "4px solid #1a7f37"
    # the page style that fills the chosen button, scoped to the quiz
    style = quiz.widget.children[0].value
    assert ".looplab-quiz .widget-toggle-button.mod-active {" in style
    assert "looplab-quiz" in quiz.widget._dom_classes


def test_the_rows_scroll_under_a_score_line_that_stays_in_view() -> None:
    quiz = Quiz()
    _, box, score = quiz.widget.children
    assert list(box.children) == quiz.rows
    assert all(row.layout.flex == "0 0 auto" for row in quiz.rows)  # rows never squeezed
    assert box.layout.max_height == "420px" and box.layout.overflow == "auto"
    assert score is quiz.score


def test_all_right_scores_full_marks() -> None:
    quiz = Quiz()
    for i, s in enumerate(STATEMENTS):
        quiz.answer(i, s.true)
    n = len(STATEMENTS)
    assert quiz.score.value == f"<b>Score: {n} right</b> ({n} of {n} answered)"
    assert repr(quiz) == f"Quiz: {n} statements, {n} answered, {n} right"


def test_custom_statements_and_html_escaping() -> None:
    mine = [Statement("1 < 2 & `x`", True, "Because <maths>.", "06")]
    quiz = Quiz(statements=mine)
    assert quiz.rows[0].children[0].value == (
        '<div style="line-height: 1.4;"><b>1.</b> 1 &lt; 2 &amp; <code>x</code></div>'
    )
    assert verdict(mine[0], False).endswith(
        "Because &lt;maths&gt;. <i>(lesson 06: token growth)</i>"
    )


def test_an_empty_quiz_is_refused_with_a_hint() -> None:
    with pytest.raises(ValueError, match=r"looplab\.views\.quiz\.STATEMENTS"):
        Quiz(statements=[])


def test_display_bundle_has_widget_static_html_and_short_text() -> None:
    quiz = Quiz(statements=STATEMENTS[:2])
    bundle = quiz._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == "Quiz: 2 statements, 0 answered, 0 right"
    assert bundle["text/html"] == quiz._repr_html_()
    assert quiz._repr_html_() == (
        "<p><b>True or false?</b></p><ol>"
        "<li>The model executes the tool.<details><summary>answer</summary><b>False.</b> "
        "The model only writes a <code>tool_use</code> block (name, input, id); your code "
        "runs the tool and sends back a <code>tool_result</code>. "
        "<i>(lesson 01: one request, one response)</i></details></li>"
        "<li>The API remembers the conversation between requests.<details><summary>answer"
        "</summary><b>False.</b> The Messages API is stateless: every request carries the "
        "whole <code>messages</code> list, which is all the agent remembers. "
        "<i>(lesson 02: the message list is the state)</i></details></li></ol>"
    )


def test_two_quizzes_render_identically() -> None:
    a, b = Quiz(), Quiz()
    a.answer(3, True)
    b.answer(3, True)
    assert [v.value for v in a.verdicts] == [v.value for v in b.verdicts]
    assert a._repr_html_() == b._repr_html_() and repr(a) == repr(b)


@pytest.mark.slow  # seconds
def test_import_looplab_does_not_import_ipywidgets_until_quiz_is_used() -> None:
    code = (
        "import sys, looplab\n"
        "assert 'ipywidgets' not in sys.modules, 'eager'\n"
        "q = looplab.Quiz\n"
        "assert 'ipywidgets' in sys.modules and q.__name__ == 'Quiz'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
