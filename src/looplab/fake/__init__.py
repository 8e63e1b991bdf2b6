"""The offline Messages API: scripted fake models served through the real anthropic SDK.

    from looplab.fake import ScriptedModel, fake_client, say, call
    model = ScriptedModel([[say("Running."), call("run_tests", module="login")], say("Done.")])
    client = fake_client(model)          # a real anthropic.Anthropic, answered offline

Streaming (`client.messages.stream(...)`) works: replies are replayed as server-sent events.
"""

from __future__ import annotations

from .client import async_fake_client, fake_client
from .clock import FakeClock
from .models import FakeModel, FunctionModel, Request, ScriptedModel, ScriptError, ScriptExhausted
from .steps import (
    Fault,
    Reply,
    api_error,
    call,
    overloaded,
    pause,
    rate_limited,
    refuse,
    reply,
    say,
    search_tools,
    stop,
    think,
    truncate,
)
from .usage import estimate_tokens

__all__ = [
    "FakeClock",
    "FakeModel",
    "Fault",
    "FunctionModel",
    "Reply",
    "Request",
    "ScriptError",
    "ScriptExhausted",
    "ScriptedModel",
    "api_error",
    "async_fake_client",
    "call",
    "estimate_tokens",
    "fake_client",
    "overloaded",
    "pause",
    "rate_limited",
    "refuse",
    "reply",
    "say",
    "search_tools",
    "stop",
    "think",
    "truncate",
]
