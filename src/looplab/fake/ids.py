"""Deterministic ids in the API's own formats.

Real ids are random; these come from a counter run through SHA-256, so the same script
gives the same ids on every run and stored notebook outputs stay stable.
"""

from __future__ import annotations

import base64
import hashlib
from collections import Counter

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

# kind -> (prefix, length of the random-looking tail)
_FORMATS = {
    "msg": ("msg_01", 22),
    "toolu": ("toolu_01", 22),
    "srvtoolu": ("srvtoolu_01", 22),
    "req": ("req_011C", 20),
    "fct": ("fct_01", 22),  # the fake's fallback credit tokens (the live ones are opaque)
}


def _base62(data: bytes, length: int) -> str:
    number = int.from_bytes(data, "big")
    chars = []
    for _ in range(length):
        number, digit = divmod(number, 62)
        chars.append(_BASE62[digit])
    return "".join(chars)


class IdMaker:
    """Hands out ids per kind: the n-th `toolu` id is always the same string."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()

    def next(self, kind: str) -> str:
        prefix, length = _FORMATS[kind]
        self._counts[kind] += 1
        digest = hashlib.sha256(f"looplab:{kind}:{self._counts[kind]}".encode()).digest()
        return prefix + _base62(digest, length)

    def signature(self, thinking: str) -> str:
        """An opaque signature for a `thinking` block, tied to its text and position."""
        self._counts["signature"] += 1
        data = f"looplab:signature:{self._counts['signature']}:{thinking}".encode()
        return base64.b64encode(hashlib.shake_256(data).digest(96)).decode("ascii")
