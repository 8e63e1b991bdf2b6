"""True or false? The common wrong statements about agent loops, as a small quiz widget.

`Quiz()` shows one row per statement with True/False buttons; picking one fills that
button, colours the row green or red, shows the verdict, a one-line reason and the lesson
that teaches it, and updates the score line. The rows scroll inside a box of capped height
with the score line just under it, so the score stays in view while answering. Everything
is set through widget values (no `with out:`), so it renders the same in a notebook, in a
static copy (the HTML fallback) and in a test without a kernel.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as W  # type: ignore[import-untyped]

from ..i18n import Message, _
from .html import QUIET_PARTS, WIDGET_CLASS

LESSONS = {
    "01": Message("one request, one response"),
    "02": Message("the message list is the state"),
    "03": Message("stop_reason is the fork"),
    "04": Message("the loop by hand"),
    "05": Message("stop gates"),
    "06": Message("token growth"),
    "07": Message("tools that fail safely"),
    "08": Message("testing an agent with a scripted model"),
    "09": Message("the SDK tool runner"),
}
"""Lesson number -> title, for the pointers (the files are `notebooks/NN_<title>.ipynb`)."""


@dataclass(frozen=True)
class Statement:
    """One quiz line: the claim, whether it holds, why, and where it is taught."""

    text: str
    true: bool
    reason: str
    """`text` and `reason` may be `Message`s: shown in the language current at that time."""
    lesson: str
    """Two-digit lesson number, a key of `LESSONS`."""

    @property
    def pointer(self) -> str:
        """Where the statement is taught, in parentheses (full-width ones in Chinese)."""
        return _("(lesson {number}: {title})").format(number=self.lesson,
                                                      title=LESSONS[self.lesson])


STATEMENTS: tuple[Statement, ...] = (
    Statement(
        Message("The model executes the tool."),
        False,
        Message("The model only writes a `tool_use` block (name, input, id); your code runs the "
                "tool and sends back a `tool_result`."),
        "01",
    ),
    Statement(
        Message("The API remembers the conversation between requests."),
        False,
        Message("The Messages API is stateless: every request carries the whole `messages` list, "
                "which is all the agent remembers."),
        "02",
    ),
    Statement(
        Message("Tool results go in a message with the role `tool`."),
        False,
        Message("There is no `tool` role: `tool_result` blocks go in a `user` message, right "
                "after the assistant message that asked for them."),
        "01",
    ),
    Statement(
        Message("Every `tool_use` needs a `tool_result` with the same id in the very next user "
                "message."),
        True,
        Message("Anything else (a missing result, a message in between) gets a 400: `tool_use` "
                "ids were found without `tool_result` blocks immediately after."),
        "02",
    ),
    Statement(
        Message("The results of a parallel call all go back in one user message."),
        True,
        Message("Split over several messages, the API merges them, but the model learns to make "
                "fewer parallel calls."),
        "02",
    ),
    Statement(
        Message("Appending only the text of a response to `messages` is enough."),
        False,
        Message("Append `response.content` whole: without its `tool_use` (and `thinking`) blocks "
                "the next `tool_result` has nothing to pair with, and the API answers 400."),
        "02",
    ),
    Statement(
        Message("Any stop is a finish: when the model stops, the task is done."),
        False,
        Message("`max_tokens` means the answer was cut off, `refusal` that it was refused, "
                "`pause_turn` that the server paused its reply, to be sent back unchanged so it "
                "can go on; none of them is done."),
        "03",
    ),
    Statement(
        Message("Only `end_turn` is a normal finish."),
        True,
        Message("`tool_use` means run the tools and ask again; every other `stop_reason` stops "
                "the loop with that reason as its status."),
        "03",
    ),
    Statement(
        Message("A turn limit makes a token budget unnecessary."),
        False,
        Message("Each turn resends the whole history, so ten turns can cost very different "
                "amounts; turns and tokens are two gates."),
        "06",
    ),
    Statement(
        Message("Token cost grows linearly with the number of turns."),
        False,
        Message("Turn n sends S + (n-1)Δ input tokens, so the total grows with the square of the "
                "turns: 17,500 for 10 turns, 65,000 for 20 (S=400, Δ=300)."),
        "06",
    ),
    Statement(
        Message("The run's timeout also stops a tool that hangs."),
        False,
        Message("The loop checks the clock between turns only; a hung tool needs its own "
                "timeout, and each request the SDK's HTTP timeout."),
        "07",
    ),
    Statement(
        Message("A tool error should go back to the model as a `tool_result` with `is_error: "
                "true`."),
        True,
        Message("The model reads what went wrong and can change course; the loop itself must "
                "never crash on a tool."),
        "07",
    ),
    Statement(
        Message("After a stop, the `messages` list can be sent again as it is."),
        False,
        Message("If the run stopped after a `tool_use`, that call has no result yet: answer it "
                "first (an `is_error` result, e.g. with `close_dangling`) or the next request "
                "gets a 400."),
        "05",
    ),
    Statement(
        Message("The SDK's tool runner adds a token budget and a timeout for you."),
        False,
        Message("It runs the loop and the tools, with `max_iterations` at most; a token budget, "
                "a timeout and repeat detection are yours to add."),
        "09",
    ),
)
"""The quiz's statements, in the order shown."""

_CODE = re.compile(r"`([^`]+)`")
_RIGHT, _WRONG = "#1a7f37", "#cf222e"
_QUIZ_CLASS = "looplab-quiz"
# The chosen button is filled (ipywidgets marks it only with a slightly darker grey).
_CHOSEN = (
    f"<style>.{_QUIZ_CLASS} .widget-toggle-button.mod-active {{"
    " background: #1f5fa8; color: white; font-weight: bold; }</style>"
)
_ROWS_HEIGHT = "420px"


def _inline(text: str) -> str:
    """Escape for HTML, turning `backticks` into <code>."""
    return _CODE.sub(r"<code>\1</code>", html.escape(str(text), quote=False))


def _lines(text: str) -> str:
    """HTML for a widget, with text lines as close as in a paragraph (not a widget's 28px)."""
    return f'<div style="line-height: 1.4;">{text}</div>' if text else ""


def _verdict_colour(statement: Statement, answer: bool) -> str:
    return _RIGHT if answer == statement.true else _WRONG


def verdict(statement: Statement, answer: bool | None) -> str:
    """The verdict line as HTML: empty until answered."""
    if answer is None:
        return ""
    if answer == statement.true:
        said = _("✓ Right: it is true.") if statement.true else _("✓ Right: it is false.")
        color = _RIGHT
    else:
        said = _("✗ Not quite: it is true.") if statement.true else _("✗ Not quite: it is false.")
        color = _WRONG
    return (
        f'<span style="color:{color}"><b>{html.escape(said)}</b></span> '
        f"{_inline(statement.reason)} <i>{html.escape(statement.pointer)}</i>"
    )


class Quiz:
    """A true/false quiz over `statements`; display it as a cell's last expression.

    `buttons[i]` is row i's True/False toggle (its `value` is True, False or None),
    `verdicts[i]` shows `verdict(...)` once it is answered, `rows[i]` is the row, `score`
    the HTML score line, and `widget` the whole `VBox`, for embedding in another layout.
    """

    def __init__(self, statements: Sequence[Statement] = STATEMENTS) -> None:
        if not statements:
            raise ValueError(
                "Quiz needs at least one Statement (e.g. looplab.views.quiz.STATEMENTS)"
            )
        self.statements = tuple(statements)
        self.buttons: list[Any] = []
        self.verdicts: list[Any] = []
        rows = []
        for i, statement in enumerate(self.statements, start=1):
            toggle = W.ToggleButtons(
                options=[(_("True"), True), (_("False"), False)],
                value=None,
                style={"button_width": "5em"},
            )
            shown = W.HTML(_lines(verdict(statement, None)))
            toggle.observe(self._on_answer, names="value")
            self.buttons.append(toggle)
            self.verdicts.append(shown)
            row = W.VBox(
                [W.HTML(_lines(f"<b>{i}.</b> {_inline(statement.text)}")), toggle, shown],
                # flex "0 0 auto": in the capped box a row keeps its height, the box scrolls
                layout=W.Layout(
                    border_left="4px solid transparent", padding="0 0 0 6px", flex="0 0 auto"
                ),
            )
            rows.append(row)
        self.rows = rows
        self.score = W.HTML(self._score_text())
        box = W.VBox(rows, layout=W.Layout(max_height=_ROWS_HEIGHT, overflow="auto"))
        self.widget = W.VBox([W.HTML(QUIET_PARTS + _CHOSEN), box, self.score])
        self.widget.add_class(WIDGET_CLASS)
        self.widget.add_class(_QUIZ_CLASS)

    @property
    def answers(self) -> list[bool | None]:
        return [b.value for b in self.buttons]

    @property
    def right(self) -> int:
        return sum(a == s.true for a, s in zip(self.answers, self.statements, strict=True))

    def answer(self, index: int, value: bool) -> None:
        """Pick True/False for row `index` (0-based), as a click on its button would."""
        self.buttons[index].value = value

    def _on_answer(self, change: dict[str, Any]) -> None:
        i = self.buttons.index(change["owner"])
        answer = change["new"]
        self.verdicts[i].value = _lines(verdict(self.statements[i], answer))
        colour = "transparent" if answer is None else _verdict_colour(self.statements[i], answer)
        self.rows[i].layout.border_left = f"4px solid {colour}"
        self.score.value = self._score_text()

    def _score_text(self) -> str:
        answered = sum(a is not None for a in self.answers)
        return _("<b>Score: {right} right</b> ({answered} of {total} answered)").format(
            right=self.right, answered=answered, total=len(self.statements))

    def __repr__(self) -> str:
        answered = sum(a is not None for a in self.answers)
        return _("Quiz: {total} statements, {answered} answered, {right} right").format(
            total=len(self.statements), answered=answered, right=self.right)

    def _repr_html_(self) -> str:
        """Static fallback (no widget manager): the statements, answers folded away."""
        answer = html.escape(_("answer"))
        yes, no = html.escape(_("True.")), html.escape(_("False."))
        items = "".join(
            f"<li>{_inline(s.text)}<details><summary>{answer}</summary>"
            f"<b>{yes if s.true else no}</b> {_inline(s.reason)} "
            f"<i>{html.escape(s.pointer)}</i></details></li>"
            for s in self.statements
        )
        title = html.escape(_("True or false?"))
        return f"<p><b>{title}</b></p><ol>{items}</ol>"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        # the live widget where a widget manager exists, the static list everywhere else
        bundle: dict[str, Any] = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/plain"] = repr(self)
        bundle["text/html"] = self._repr_html_()
        return bundle
