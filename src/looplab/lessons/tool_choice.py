"""Lesson 20's scripted chooser: a fake model that picks a tool by reading the descriptions.

It is not a language model. It scores each tool by the words its name and description
share with the user's request (English words of four letters or more; Chinese as pairs of
characters), adds a little noise drawn for the trial, and calls the tool that scores best.
When two descriptions say the same thing, the noise decides; when they say what tells the
tools apart, the words do. So it shows how to *measure* a wrong-tool rate over trials, and
that the measurement moves with the descriptions; how much a real model moves is for the
same trials against the live API to say.
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..fake import call, say
from ..fake.models import Request
from ..fake.steps import StepLike

_WORD = re.compile(r"[a-z]{4,}")
_HAN = re.compile(r"[\u4e00-\u9fff]+")
NOISE = 1.5
"""How many shared words the noise may outweigh: a description must say clearly more."""


def words(text: str) -> set[str]:
    """The words of `text` the chooser compares: English words, Chinese character pairs."""
    found = set(_WORD.findall(text.lower()))
    for run in _HAN.findall(text):
        found.update(run[i:i + 2] for i in range(len(run) - 1))
    return found


def choose(request_text: str, tools: Sequence[Mapping[str, Any]], trial: int) -> str:
    """The name of the tool the chooser calls for `request_text` in trial `trial`. The noise
    is drawn from the trial's number alone, so a translated request draws the same."""
    rng = random.Random(zlib.crc32(f"trial {trial}".encode()))
    asked = words(request_text)

    def score(t: Mapping[str, Any]) -> float:
        said = words(f"{t.get('name', '')} {t.get('description', '')}".replace("_", " "))
        return len(asked & said) + rng.uniform(0, NOISE)

    return str(max(tools, key=score)["name"])


def chooser(trial: int, argument: str, value: str) -> Callable[[Request], StepLike]:
    """A `FunctionModel` function: in trial `trial`, call the chosen tool with
    `{argument: value}`, then end the turn."""

    def respond(request: Request) -> StepLike:
        if request.messages[-1]["role"] == "user" and isinstance(
                request.messages[-1]["content"], str):
            return call(choose(request.last_user_text(), request.tools, trial),
                        **{argument: value})
        return say("Done.")

    return respond
