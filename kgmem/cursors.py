"""Opaque, signed search cursors: what a steered search's next page continues from.

A cursor is ``base64url(JSON payload) . base64url(HMAC-SHA256 of it, 16 bytes)``: the payload
binds the query, the filters and the scope (digests) and the write versions of the searched
conversations, and lists the turns earlier pages returned (`kgmem.steer`). A cursor this codec
did not seal, or altered, is `InvalidCursor` (``forged``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from typing import Any

from kgmem.errors import InvalidCursor

__all__ = ["CursorCodec", "digest"]


class CursorCodec:
    """Signs and opens cursors with one secret (per process unless configured:
    ``KGMEM_CURSOR_SECRET`` keeps cursors valid across restarts and replicas)."""

    def __init__(self, secret: bytes | None = None) -> None:
        self._secret = secret or secrets.token_bytes(32)

    def seal(self, payload: dict[str, Any]) -> str:
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")
        sig = hmac.new(self._secret, body, hashlib.sha256).digest()[:16]
        return _b64(body) + "." + _b64(sig)

    def open(self, cursor: str) -> dict[str, Any]:
        """The payload of a cursor this codec sealed.

        Raises:
            InvalidCursor: ``forged``.
        """
        forged = InvalidCursor(
            "the cursor is not one this service issued (or was altered); search again without "
            "a cursor",
            reason="forged",
        )
        try:
            body_text, sig_text = cursor.split(".")
            body, sig = _unb64(body_text), _unb64(sig_text)
        except (ValueError, TypeError):
            raise forged from None
        if _b64(body) != body_text or _b64(sig) != sig_text:  # one spelling per cursor
            raise forged
        good = hmac.new(self._secret, body, hashlib.sha256).digest()[:16]
        if not hmac.compare_digest(sig, good):
            raise forged
        payload: dict[str, Any] = json.loads(body)
        return payload


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def digest(value: Any, n: int = 12) -> str:
    """The first ``n`` hex digits of SHA-256 of ``value`` as canonical JSON."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:n]
