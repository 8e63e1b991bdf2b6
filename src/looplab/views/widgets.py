"""See each turn: `TurnViewer` for a finished run, `LiveRun` to step one live.

The widgets are composed (`VBox`, `HTML`, `Output`) and fill their `Output` with
`append_stdout`/`append_display_data` only, never `with out:`, so they behave the same in
JupyterLab, under nbval, and in a plain Python test. Each one also carries an HTML copy
of what it shows (from `looplab.views.html`), for static renderings that cannot run widgets.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import anthropic
import ipywidgets as W  # type: ignore[import-untyped]

from ..core.limits import Limits
from ..core.loop import AgentRun
from ..core.result import RunResult, Turn
from ..i18n import _
from .html import (
    FONT,
    QUIET_PARTS,
    WIDGET_CLASS,
    render_run_html,
    render_turn_html,
    status_html,
    with_html,
)

__all__ = ["LiveRun", "TurnViewer"]


class TurnViewer(W.VBox):  # type: ignore[misc]
    """Step through a run's turns with a slider or the prev/next buttons.

        TurnViewer(result)

    `.slider.value` is the turn shown (1-based); `.html.value` is its HTML. Every turn's
    HTML is in the widget (`.pages`, one page per turn), and the slider picks the page in
    the browser itself: in a lesson saved with its widget state, the slider still steps
    through the turns without a running kernel (the buttons need one).
    """

    def __init__(self, result: RunResult | None = None) -> None:
        self.header = W.HTML()
        self.slider = W.IntSlider(value=1, min=1, max=1, description=_("turn"))
        self.prev_button = W.Button(description=_("◀ prev"), layout=W.Layout(width="80px"))
        self.next_button = W.Button(description=_("next ▶"), layout=W.Layout(width="80px"))
        # page 0 is never shown: pages[n] is turn n, as the slider counts
        self.pages = W.Stack([W.HTML(), W.HTML()], selected_index=1)
        self._link = W.jslink((self.slider, "value"), (self.pages, "selected_index"))
        controls = W.HBox(
            [self.prev_button, self.slider, self.next_button],
            layout=W.Layout(flex_flow="row wrap", align_items="center"),
        )
        super().__init__([self.header, controls, self.pages])
        self.add_class(WIDGET_CLASS)
        self._turns: list[Turn] = []
        self._status, self._detail = "not started", ""
        self.slider.observe(lambda _: self._render(), names="value")
        self.prev_button.on_click(lambda _: self.show(self.slider.value - 1))
        self.next_button.on_click(lambda _: self.show(self.slider.value + 1))
        if result is not None:
            self.load(result)
        else:
            self.set_turns([], "not started")

    def load(self, result: RunResult, *, turn: int | None = None) -> None:
        """Show `result`, at `turn` (default: the first)."""
        self.set_turns(result.turns, result.status, str(result.detail), turn=turn or 1)

    def set_turns(
        self, turns: Sequence[Turn], status: str, detail: str = "", *, turn: int = 1
    ) -> None:
        """Show `turns` of a run that may still be going (`status` e.g. "running")."""
        self._turns = list(turns)
        self._status, self._detail = status, detail
        self._set_pages()
        with self.slider.hold_trait_notifications():
            self.slider.max = max(1, len(self._turns))
            self.slider.value = min(max(1, turn), self.slider.max)
        self._render()

    def _set_pages(self) -> None:
        """One HTML page per turn; the widgets already there are reused."""
        values, previous = [""], None
        for t in self._turns:
            last = t is self._turns[-1]
            values.append(render_turn_html(t, previous=previous,
                                           stopped=self._status if last else None))
            previous = t
        if not self._turns:
            empty = _("no turns yet")
            values.append(f'<div class="looplab-turn" style="{FONT}"><i>{empty}</i></div>')
        pages = list(self.pages.children)
        pages += [W.HTML() for _ in range(len(values) - len(pages))]
        for page, value in zip(pages, values, strict=False):
            page.value = value
        for unused in pages[len(values) :]:
            unused.close()
        self.pages.children = pages[: len(values)]

    @property
    def html(self) -> Any:
        """The `HTML` widget of the turn on screen."""
        return self.pages.children[self.slider.value]

    @property
    def turn(self) -> Turn | None:
        """The turn on screen, or `None` if the run has none."""
        return self._turns[self.slider.value - 1] if self._turns else None

    def show(self, n: int) -> None:
        """Go to turn `n` (clamped to the run's turns)."""
        self.slider.value = min(max(1, n), self.slider.max)

    def _render(self) -> None:
        n = self.slider.value
        self.pages.selected_index = n  # the browser's link does the same; this is for Python
        self.header.value = QUIET_PARTS + status_html(self._status, self._detail, len(self._turns))
        self.prev_button.disabled = n <= 1
        self.next_button.disabled = n >= len(self._turns)
        self.slider.disabled = len(self._turns) <= 1

    def static_html(self) -> str:
        """Every turn as HTML (what a page without widgets shows)."""
        return render_run_html(
            RunResult(status=self._status, messages=[], turns=self._turns, detail=self._detail)
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return with_html(super()._repr_mimebundle_(**kwargs), self.static_html())

    def __repr__(self) -> str:
        return (
            f"TurnViewer(turn {self.slider.value if self._turns else 0} of {len(self._turns)},"
            f" status={self._status!r})"
        )


ClientLike = anthropic.Anthropic | Callable[[], anthropic.Anthropic]


class LiveRun(W.VBox):  # type: ignore[misc]
    """Drive an `AgentRun` one model request per click: Step, Run to end, Reset.

        LiveRun(fake_client(ScriptedModel(script)), task, tools=..., limits=Limits(...))

    The limit sliders change the running run's limits at once (a gate that has already
    stopped the run stays stopped: press Reset). `client` may also be a function that
    builds a client: it is called again on every Reset, so a scripted fake replays from
    its first step (a client object is reused as it is, and a fake's script goes on
    where it was). Other keyword arguments go to `AgentRun` (`clock`, `system`, …); with
    a `FakeClock` every number on screen is the same on every run.
    """

    def __init__(
        self,
        client: ClientLike,
        task: str | Sequence[dict[str, Any]],
        tools: Sequence[Any] = (),
        limits: Limits | None = None,
        **run_kwargs: Any,
    ) -> None:
        limits = Limits() if limits is None else limits
        self._client_or_factory = client
        self.task, self.tools, self.run_kwargs = task, list(tools), run_kwargs
        self.step_button = W.Button(description=_("Step"), button_style="primary")
        self.run_button = W.Button(description=_("Run to end"))
        self.reset_button = W.Button(description=_("Reset"))
        self.sliders = self._limit_sliders(limits)
        self.viewer = TurnViewer()
        self.out = W.Output()
        super().__init__(
            [
                W.HBox([self.step_button, self.run_button, self.reset_button]),
                W.HBox(list(self.sliders.values()), layout=W.Layout(flex_flow="row wrap")),
                self.viewer,
                self.out,
            ]
        )
        self.add_class(WIDGET_CLASS)
        self._limits = limits
        self.error: BaseException | None = None
        self.run = self._new_run()
        self.step_button.on_click(lambda _: self.step())
        self.run_button.on_click(lambda _: self.run_to_end())
        self.reset_button.on_click(lambda _: self.reset())
        for name, slider in self.sliders.items():
            slider.observe(lambda change, name=name: self._set_limit(name, change["new"]), "value")
        self._render()

    @staticmethod
    def _limit_sliders(limits: Limits) -> dict[str, Any]:
        """A slider per gate that is on (a gate set to None has none)."""
        specs = {
            "max_turns": (1, 30, 1),
            "token_budget": (1_000, 200_000, 1_000),
            "max_repeats": (1, 10, 1),
        }
        sliders = {}
        for name, (low, high, step) in specs.items():
            value = getattr(limits, name)
            if value is None:
                continue
            sliders[name] = W.IntSlider(
                value=value,
                min=min(low, value),
                max=max(high, value),
                step=step,
                description=name,
                continuous_update=False,
                style={"description_width": "initial"},
            )
        return sliders

    @property
    def limits(self) -> Limits:
        return self._limits

    def _client(self) -> anthropic.Anthropic:
        c = self._client_or_factory
        return c if isinstance(c, anthropic.Anthropic) else c()

    def _new_run(self) -> AgentRun:
        return AgentRun(
            self._client(), self.task, tools=self.tools, limits=self._limits, **self.run_kwargs
        )

    def _set_limit(self, name: str, value: int) -> None:
        change: dict[str, Any] = {name: value}
        self._limits = dataclasses.replace(self._limits, **change)
        self.run.limits = self._limits  # read by the gates before the next request
        self._render()

    @property
    def finished(self) -> bool:
        return self.run.finished or self.error is not None

    def step(self) -> Turn | None:
        """One model request and its tools; the view moves to the new turn."""
        if self.finished:
            return None
        try:
            turn = self.run.step()
        except Exception as e:  # shown, not raised: a click handler's exception is invisible
            self.error = e
            self.out.append_stdout(_("error: {error}").format(error=f"{type(e).__name__}: {e}")
                                   + "\n")
            turn = None
        if turn is not None:
            self.out.append_stdout(
                _("turn {n}: stop_reason {reason}, {tokens:,} input tokens").format(
                    n=turn.index, reason=turn.stop_reason, tokens=turn.total_input) + "\n"
            )
        if self.run.finished:
            self.out.append_stdout(f"{self.run.result}\n")
        self._render()
        return turn

    def run_to_end(self) -> RunResult | None:
        """Step until the run has finished."""
        while not self.finished:
            self.step()
        return self.run.result

    def reset(self) -> None:
        """Start again from the task, with the limits the sliders show."""
        self.error = None
        self.out.outputs = ()
        self.run = self._new_run()
        self._render()

    def _state(self) -> tuple[str, str]:
        if self.error is not None:
            return "error", f"{type(self.error).__name__}: {self.error}"
        result = self.run.result
        if result is not None:
            return result.status, str(result.detail)
        return ("running" if self.run.turns else "not started"), ""

    def _render(self) -> None:
        status, detail = self._state()
        self.step_button.disabled = self.run_button.disabled = self.finished
        self.viewer.set_turns(self.run.turns, status, detail, turn=len(self.run.turns))

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return with_html(super()._repr_mimebundle_(**kwargs), self.viewer.static_html())

    def __repr__(self) -> str:
        status, _ = self._state()
        return f"LiveRun(turns={len(self.run.turns)}, status={status!r})"
