"""Standard Webhooks signatures: ``v1,<base64 HMAC-SHA256 of "id.timestamp.body">`` with a ``whsec_`` secret.

The secret's key is the base64 after ``whsec_``. During a rotation's overlap the ``webhook-signature``
header carries one signature per secret, space-separated; a receiver accepts the message when any matches.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

PREFIX = "whsec_"
KEY_BYTES = 24


def new_secret() -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode()


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(PREFIX))


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signature_header(secrets_: list[str], msg_id: str, timestamp: int, body: bytes) -> str:
    return " ".join(sign(s, msg_id, timestamp, body) for s in secrets_)


def verify(secret: str, msg_id: str, timestamp: int, body: bytes, header: str) -> bool:
    """Whether any ``v1`` signature in ``header`` is this secret's (what a receiver checks)."""
    expected = sign(secret, msg_id, timestamp, body)
    return any(hmac.compare_digest(expected, part) for part in header.split())
