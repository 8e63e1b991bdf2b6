"""The lessons' one switch between the offline fake and the live API."""

from __future__ import annotations

import os

import anthropic

from .fake import FakeModel, ScriptedModel, fake_client


def client(model: FakeModel | None = None, *, verbose: bool = True) -> anthropic.Anthropic:
    """The live `anthropic.Anthropic()` only when `LOOPLAB_LIVE=1` and `ANTHROPIC_API_KEY`
    are both set; otherwise `fake_client(model)` (an empty script when `model` is None).

    Prints one line saying which client it returned (unless `verbose=False`).
    """
    live = os.environ.get("LOOPLAB_LIVE") == "1"
    has_key = bool(os.environ.get("ANTHROPIC_API_KEY"))
    if live and has_key:
        _say(verbose, "looplab: using the LIVE Anthropic API (LOOPLAB_LIVE=1); calls cost tokens.")
        return anthropic.Anthropic()
    if live:
        _say(
            verbose,
            "looplab: LOOPLAB_LIVE=1 but ANTHROPIC_API_KEY is not set; "
            "using the offline fake API instead.",
        )
    else:
        _say(verbose, "looplab: using the offline fake API (set LOOPLAB_LIVE=1 to go live).")
    return fake_client(model if model is not None else ScriptedModel([]))


def _say(verbose: bool, line: str) -> None:
    if verbose:
        print(line)
