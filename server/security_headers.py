"""Browser security headers on every HTTP response.

A strict Content-Security-Policy (scripts, styles, fonts and workers from this server only; no
framing; connections only back to this server), ``X-Frame-Options`` for browsers older than
``frame-ancestors``, ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer``, added
by the request layer (``request_layer.py``) to every HTTP response that does not set them itself.
"""

from __future__ import annotations

import re

# A Host header that is safe to write into the policy: a name or address and an optional port.
_PLAIN_HOST = re.compile(r"^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$")

_POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    # Monaco (GraphiQL's editor) starts its language workers from same-origin chunks, not blobs.
    "worker-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
    "form-action 'self'",
)


def content_security_policy(host: str | None, *, inline_styles: bool = False) -> str:
    """The policy for a response to a request sent to ``host``.

    CSP Level 3 lets ``'self'`` match ws: and wss: to the same host, which Chromium and Firefox
    implement; the WebSocket URLs are also named explicitly for browsers that predate that.
    ``inline_styles`` is for the GraphiQL page only: its editor (Monaco) writes <style> elements and
    style attributes at run time and cannot be given a nonce
    (docs/decisions/0014-authentication-and-browser-security.md).
    """
    connect = "connect-src 'self'"
    host = (host or "").strip().lower()
    if _PLAIN_HOST.match(host):
        connect += f" ws://{host} wss://{host}"
    policy = [*_POLICY, connect]
    if inline_styles:
        policy[policy.index("style-src 'self'")] = "style-src 'self' 'unsafe-inline'"
    return "; ".join(policy)
