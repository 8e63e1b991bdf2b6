"""How much of the package one turn passes through: a two-turn `run_agent` (one tool turn,
one answer) with a default tool, measured with `sys.setprofile`, counting the package's
files and named functions entered outside the fake (what the fake calls is the API's side).

The numbers are a ceiling that only goes down: a change that makes a turn pass through more
of the package fails here. They are the goal for a student reading one turn beside the
article: 5 files (core/loop.py, limits.py, tools.py; running/calls.py and output.py, where a
default tool runs) and 20 named functions."""

from __future__ import annotations

import os
import sys
from types import FrameType
from typing import Any

import looplab
from looplab import ScriptedModel, call, fake_client, run_agent, say, tool

PACKAGE = os.path.dirname(looplab.__file__)
FAKE = os.path.join(PACKAGE, "fake")
MAX_FILES, MAX_FUNCTIONS = 5, 20


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


def entered() -> dict[str, set[str]]:
    def script() -> ScriptedModel:
        return ScriptedModel([call("read_file", path="login.py"), say("done")])

    run_agent(fake_client(script()), "warm up", tools=[read_file])  # caches filled once
    client = fake_client(script())
    seen: dict[str, set[str]] = {}

    def outside_fake(frame: FrameType | None) -> bool:
        while frame is not None:
            if frame.f_code.co_filename.startswith(FAKE):
                return False
            frame = frame.f_back
        return True

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        code = frame.f_code
        if (event == "call" and code.co_filename.startswith(PACKAGE)
                and not code.co_name.startswith("<") and outside_fake(frame)):
            seen.setdefault(os.path.relpath(code.co_filename, PACKAGE), set()).add(
                code.co_qualname)

    sys.setprofile(profile)
    try:
        result = run_agent(client, "Read login.py.", tools=[read_file])
    finally:
        sys.setprofile(None)
    assert str(result) == "done" and len(result.turns) == 2
    return seen


def test_one_turn_passes_through_few_files_and_functions() -> None:
    seen = entered()
    functions = sum(len(names) for names in seen.values())
    where = {f: sorted(names) for f, names in sorted(seen.items())}
    assert "core/loop.py" in seen and "core/tools.py" in seen  # the profile sees the loop
    assert len(seen) <= MAX_FILES, where
    assert functions <= MAX_FUNCTIONS, where
