"""Lesson 08's agents under test, run in the grader; and the kernel's objects they use.

In lesson 08 the student writes a test, and the checker runs it against the lesson's agent
and two broken ones. A test that can see which agent it got could pass all three without
testing anything, so when grading, the three reach the kernel as the same function: the
lesson's own `agent` (from the grader's copy of the lesson), whose `run_agent` is served
here. The grader runs the loop with the right gate or a broken one; the model's requests go
to the client the student's test made, and the tools to the kernel's tools, over the
connection the kernel is waiting on. The test can tell the three apart only by what they do.
"""

from __future__ import annotations

import base64
import dataclasses
from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2

from ..core.limits import Limits
from ..core.loop import run_agent
from ..core.result import RunResult
from ..fake.client import FAKE_API_KEY, FAKE_BASE_URL
from .codec import Handles, KernelRef, remote_exception

BROKEN = ({"max_repeats": None}, {"max_repeats": 4})
"""The broken repeat gates: none at all, and one call late."""


@dataclass(frozen=True)
class LessonAgent:
    """The lesson's `agent` function (its source), with the gate the grader runs it with."""

    name: str
    source: str
    override: tuple[tuple[str, Any], ...] = ()

    def wire_form(self, handles: Handles) -> dict[str, Any]:
        """How it goes to the kernel: its source, and its `run_agent` served here."""
        run = {"$callable": handles.keep(self.run_agent), "name": "run_agent"}
        return {"$agent": self.source, "name": self.name, "run_agent": run}

    def under_test(self) -> tuple[LessonAgent, ...]:
        """The agent, then the same agent with each broken gate."""
        return (self, *(dataclasses.replace(self, override=tuple(o.items())) for o in BROKEN))

    def run_agent(self, client: Any, task: Any, *, tools: Any = (), limits: Any = None,
                  **options: Any) -> RunResult:  # fmt: skip
        """`looplab.run_agent`, run here for the kernel's agent, with this variant's gate.
        The result that goes back carries the limits the kernel asked for, whichever gate
        ran: what it did (messages, turns, status) is all that tells the variants apart."""
        asked = limits if isinstance(limits, Limits) else Limits()
        ran = dataclasses.replace(asked, **dict(self.override))
        clock = options.get("clock")
        result = run_agent(kernel_client(client), str(task), tools=list(tools), limits=ran,
                           **({"clock": clock} if clock is not None else {}))  # fmt: skip
        return dataclasses.replace(result, limits=asked)


class _Transport(httpx2.BaseTransport):
    """HTTP sent through a client in the kernel (the student's test made it)."""

    def __init__(self, ref: KernelRef) -> None:
        self.ref = ref

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        timeout = request.extensions.get("timeout")
        http = {"method": request.method, "url": str(request.url),
                "headers": list(request.headers.multi_items()),
                "body": base64.b64encode(request.read()).decode(),
                "timeout": timeout if isinstance(timeout, dict) else None}  # fmt: skip
        reply = self.ref.ask({"http": http})
        if not isinstance(reply, dict) or "raised" in reply:
            info = reply.get("raised", {}) if isinstance(reply, dict) else {}
            raise remote_exception(str(info.get("type")), str(info.get("message", "")))
        body = base64.b64decode(reply["body"])
        return httpx2.Response(int(reply["status"]), headers=reply["headers"], content=body,
                               request=request)  # fmt: skip


def kernel_client(ref: Any) -> anthropic.Anthropic:
    """An SDK client whose requests go through the kernel's client `ref`."""
    if not isinstance(ref, KernelRef):
        raise TypeError(f"expected a client, got {type(ref).__name__}")
    http = httpx2.Client(transport=_Transport(ref))
    return anthropic.Anthropic(api_key=FAKE_API_KEY, base_url=FAKE_BASE_URL, http_client=http,
                               max_retries=0)  # fmt: skip
