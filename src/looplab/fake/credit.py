"""Fallback credits (beta `fallback-credit-2026-07-01`), which the SDK's client-side
`BetaRefusalFallbackMiddleware` relies on, as the fake plays them.

From the SDK's `BetaRefusalStopDetails.fallback_credit_token`,
`BetaFallbackCreditTokenParam` and `BetaFallbackCreditUsage`:

- with the beta, a refusal carries a `fallback_credit_token` in `stop_details` (the
  SDK's middleware says "refusals minted by the first-party `client.messages` surface
  carry no `fallback_credit_token`", but both surfaces send the same request on the
  wire here; the fake tells them apart by the beta header only);
- the retry sends it as `fallback_credit_token` (a string, or `{"token", "mode"}`)
  "with the same request body (`system`, `messages`, `tools`, and other render-shaping
  fields)" on another model; the reply's `usage.fallback_credit.status` says
  `redeemed`, or `not_applied` with a `reason`;
- `mode: "strict"` (the default) makes a failing redemption a 400; `best_effort`
  serves the retry and reports it. "Two failures stay hard in both modes: a malformed
  token, and combining `fallback_credit_token` with `fallbacks`."

The fake grants no prefill claim (`fallback_has_prefill_claim: false`), does not
expire tokens, and checks the body as `system`, `messages`, `tools`, `tool_choice` and
`thinking`. The texts of its 400s are its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .errors import FAKE_WORDING, BadRequest
from .models import ServerMemory

CREDIT_BETAS = frozenset({"fallback-credit-2026-06-01", "fallback-credit-2026-07-01"})
_RENDERED = ("system", "messages", "tools", "tool_choice", "thinking")


def credit_enabled(beta_header: str | None) -> bool:
    betas = {name.strip() for name in (beta_header or "").split(",")}
    return bool(betas & CREDIT_BETAS)


def _rendered(body: Mapping[str, Any]) -> str:
    return json.dumps({key: body.get(key) for key in _RENDERED}, sort_keys=True, default=str)


def mint(memory: ServerMemory, message: dict[str, Any], body: Mapping[str, Any]) -> None:
    """Give a refusal's `stop_details` a fallback credit token for its retry."""
    details = message.get("stop_details")
    if message.get("stop_reason") != "refusal" or not isinstance(details, dict):
        return
    token = memory.ids.next("fct")
    memory.credits[token] = (str(body["model"]), _rendered(body))
    details.update({"fallback_credit_token": token, "fallback_has_prefill_claim": False,
                    "recommended_model": details.get("recommended_model")})


def redeem(memory: ServerMemory, body: Mapping[str, Any]) -> dict[str, Any] | None:
    """`usage.fallback_credit` for a request that presents a token, or None; a 400
    for what fails it (always for a malformed token or one sent with `fallbacks`)."""
    sent = body.get("fallback_credit_token")
    if sent is None:
        return None
    token, mode = (sent, "strict") if isinstance(sent, str) else (
        (sent.get("token"), sent.get("mode", "strict")) if isinstance(sent, Mapping)
        else (None, None))
    if not isinstance(token, str) or token not in memory.credits or mode not in (
            "strict", "best_effort"):
        raise BadRequest("fallback_credit_token: malformed token" + FAKE_WORDING)
    if body.get("fallbacks") is not None:
        raise BadRequest("fallback_credit_token cannot be combined with fallbacks"
                         + FAKE_WORDING)
    refused_model, rendered = memory.credits[token]
    reason = None
    if body.get("model") == refused_model:
        reason = "invalid_target_model"
    elif _rendered(body) != rendered:
        reason = "body_mismatch"
    if reason is None:
        return {"status": {"type": "redeemed"}}
    if mode == "strict":
        raise BadRequest(f"fallback_credit_token: not redeemable ({reason})" + FAKE_WORDING)
    return {"status": {"type": "not_applied", "reason": reason}}
