"""Does the fake check histories, and play the API's own features, like the endpoint does?
Send every probe to both and compare.

    table = conformance.run(looplab.record(live_client, "conformance.json"), model)
    print(table)                       # one row per probe: live, fake, agree
    print(conformance.run(looplab.replay("conformance.json"), model))   # the same, offline

`RECORDED` is the recording shipped with looplab; the test suite replays it.

Two answers agree when both accepted the request (and, for a feature probe, the server
did the same to it: the same edits applied, a compaction block or none), or both refused it
with the same status and the same error text. "status only" means the texts differ: the
fake's text needs fixing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anthropic

from ..fake import FunctionModel, Request, call, fake_client, say, think
from ..fake.steps import StepLike
from .feature_probes import FEATURE_PROBES
from .probes import RULE_PROBES, Body, Probe

PROBES: tuple[Probe, ...] = (*RULE_PROBES, *FEATURE_PROBES)
"""Every probe, in the order `run` sends them."""
RECORDED = Path(__file__).resolve().with_name("conformance.json")
"""The shipped recording of the probes (see its `note` for where it was recorded)."""


@dataclass(frozen=True)
class Answer:
    """What an endpoint answered to one probe. `status` 0: the probe could not be made."""

    status: int
    kind: str
    """The error's `type`, or the `stop_reason` of an accepted request."""
    message: str = ""
    effect: str = ""
    """What the server did to an accepted request, for a probe that names it."""

    def __str__(self) -> str:
        if self.status == 0:
            return f"not sent: {self.message}"
        if self.status < 300:
            return f"{self.status} accepted ({self.kind})" + (
                f"; {self.effect}" if self.effect else "")
        return f"{self.status} {self.kind}: {self.message}"


@dataclass(frozen=True)
class Row:
    probe: Probe
    live: Answer
    fake: Answer

    @property
    def agree(self) -> str:
        live, fake = self.live, self.fake
        if not live.status or not fake.status:
            return "n/a"
        if live.status < 300 and fake.status < 300:
            return "yes" if live.effect == fake.effect else "no"
        if live.status != fake.status:
            return "no"
        return "yes" if (live.kind, live.message) == (fake.kind, fake.message) else "status only"


@dataclass(frozen=True)
class Table:
    """The comparison: one `Row` per probe. `str(table)` is the printed table."""

    endpoint: str
    model: str
    rows: tuple[Row, ...]

    @property
    def disagreements(self) -> list[Row]:
        return [row for row in self.rows if row.agree not in ("yes", "n/a")]

    def __str__(self) -> str:
        width = max(len(row.probe.name) for row in self.rows)
        lines = [
            f"live: {self.endpoint} (model {self.model})",
            "fake: looplab's offline fake",
            "",
            f"{'probe':<{width}}  rule   live  fake  agree",
        ]
        for row in self.rows:
            lines.append(
                f"{row.probe.name:<{width}}  {row.probe.rule:<5}  {_code(row.live):>4}  "
                f"{_code(row.fake):>4}  {row.agree}"
            )
        counts = {word: sum(row.agree == word for row in self.rows)
                  for word in ("yes", "status only", "no", "n/a")}
        lines += ["", f"{counts['yes']} agree, {counts['status only']} differ in the text only, "
                  f"{counts['no']} differ, {counts['n/a']} not compared.", "",
                  "What each answered:"]
        for row in self.rows:
            lines.append(f"- {row.probe.name}: {row.probe.what}")
            lines.append(f"    live: {row.live}")
            if row.agree != "yes":
                lines.append(f"    fake: {row.fake}")
        return "\n".join(lines)


def ask(client: anthropic.Anthropic, model: str, probes: Sequence[Probe] = PROBES) -> list[Answer]:
    """Send every probe to `client` (setup requests first, where a probe needs them).

    A refused request is an answer; a connection failure raises `anthropic.APIConnectionError`.
    """

    def send(request: Body) -> Any:
        if "betas" in request:
            return client.beta.messages.create(model=model, **request)
        return client.messages.create(model=model, **request)

    answers = []
    for probe in probes:
        try:
            built = probe.build(send)
        except anthropic.APIStatusError as err:
            answers.append(Answer(0, "", f"a setup request was refused ({_refusal(err)})"))
            continue
        if isinstance(built, str):
            answers.append(Answer(0, "", built))
            continue
        try:
            reply = send(built)
        except anthropic.APIStatusError as err:
            answers.append(_refusal(err))
        else:
            effect = probe.effect(reply) if probe.effect is not None else ""
            answers.append(Answer(200, str(reply.stop_reason), effect=effect))
    return answers


def run(
    client: anthropic.Anthropic,
    model: str,
    probes: Sequence[Probe] = PROBES,
    *,
    endpoint: str | None = None,
) -> Table:
    """Send the probes to `client` and to a fresh fake; compare the answers.

    `endpoint` names the live side in the table (default: the client's base URL).
    """
    live = ask(client, model, probes)
    fake = ask(fake_client(fake_model()), model, probes)
    label = endpoint or str(client.base_url).rstrip("/")
    rows = (Row(p, a, b) for p, a, b in zip(probes, live, fake, strict=True))
    return Table(label, model, tuple(rows))


def fake_model() -> FunctionModel:
    """The fake's side of the probes: a model that answers "ok"; asked to think, it thinks
    first, and on a fresh task with tools calls `run_tests` (the setup of
    `thinking_modified`)."""
    return FunctionModel(_fake_reply)


def _fake_reply(request: Request) -> StepLike:
    """The fake's model: it thinks when asked to, and calls a tool on a fresh task."""
    if not request.body.get("thinking"):
        return say("ok")
    if request.turn == 0 and request.body.get("tools"):
        return [think("The tests come first."), call("run_tests", module="login")]
    return [think("One line will do."), say("ok")]


def _refusal(err: anthropic.APIStatusError) -> Answer:
    body: Any = err.body
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return Answer(err.status_code, str(error.get("type", "")), str(error.get("message", "")))
    return Answer(err.status_code, "error", str(err.message))


def _code(answer: Answer) -> str:
    return str(answer.status) if answer.status else "-"
