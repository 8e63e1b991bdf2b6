"""Live once, replay forever: cassettes of real runs, and probes of a live endpoint.

    client = looplab.record(looplab.client(), "login-run.json")   # live (or fake) run, saved
    result = looplab.run_agent(client, TASK, tools=demo_tools())
    again = looplab.replay("login-run.json")                     # offline, same answers
    script = to_script(Cassette.load("login-run.json"))        # a ScriptedModel to edit

`conformance` sends the history-rule probes to an endpoint and compares its answers with
the offline fake's.
"""

from __future__ import annotations

from .cassette import Cassette, Exchange
from .player import Player, ReplayMismatch, first_difference, replay
from .recorder import record
from .script import to_script

__all__ = [
    "Cassette",
    "Exchange",
    "Player",
    "ReplayMismatch",
    "first_difference",
    "record",
    "replay",
    "to_script",
]
