"""The API's error answers: the envelope, and the exceptions the request checks raise."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx2

from ..errors import LooplabError

FAKE_WORDING = " (looplab's fake: exact live wording not verified)"
"""Appended to an error text whose live wording has no source: the check is real, the
sentence is the fake's."""


class BadRequest(LooplabError):
    """A request the API would reject with HTTP 400 `invalid_request_error`."""

    status = 400
    kind = "invalid_request_error"

    def __init__(self, message: str, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class NotFound(BadRequest):
    """A request the API would reject with HTTP 404 `not_found_error` (an unknown model)."""

    status = 404
    kind = "not_found_error"


def error_response(
    status: int,
    kind: str,
    message: str,
    request_id: str,
    headers: Mapping[str, str] | None = None,
    details: Mapping[str, Any] | None = None,
) -> httpx2.Response:
    """An HTTP error in the API's envelope, with its `request-id` header."""
    error: dict[str, Any] = {"type": kind, "message": message}
    if details:
        error["details"] = dict(details)
    return httpx2.Response(
        status,
        headers={"request-id": request_id, **(headers or {})},
        json={"type": "error", "error": error, "request_id": request_id},
    )


def refusal_response(bad: BadRequest, request_id: str) -> httpx2.Response:
    """The answer to a request a check refused."""
    return error_response(bad.status, bad.kind, bad.message, request_id, details=bad.details)
