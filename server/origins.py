"""Which browser origins may open a WebSocket or call /mcp: the server's own (scheme, host and port) and
those listed in ``allowed_origins``.

A page's ``Origin`` is compared with the origin the request was sent to, scheme included: an ``https``
page is not the same origin as an ``http`` server on the same host and port. Behind a proxy that
terminates TLS, uvicorn takes the scheme from ``X-Forwarded-Proto`` when the proxy's address is in
``FORWARDED_ALLOW_IPS`` (default: loopback), so the page and the server agree again.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from strawberry.http.websocket_origin import normalize_allowed_origins, normalize_origin

SECURE_SCHEMES = frozenset({"https", "wss"})


def request_origin(scheme: str, host: str | None) -> str | None:
    """The origin a request was addressed to, as a browser would write it (``ws``/``wss`` as ``http(s)``)."""
    if not host:
        return None
    return normalize_origin(f"{'https' if scheme in SECURE_SCHEMES else 'http'}://{host}")


def origin_allowed(
    origin: str | None,
    scheme: str,
    host: str | None,
    allowed: Collection[str],
    fetch_site: str | None = None,
) -> bool:
    """No ``Origin`` (not a browser), the request's own origin, or one listed in ``allowed``.

    ``fetch_site`` is the browser's ``Sec-Fetch-Site``: a browser says ``same-origin`` only when the page
    and the URL it opened share scheme, host and port, which holds through any proxy.
    """
    if origin is None or fetch_site == "same-origin":
        return True
    given = normalize_origin(origin)
    return given is not None and (given == request_origin(scheme, host) or given in allowed)


def check_allowed_origins(origins: Iterable[str]) -> frozenset[str]:
    """The listed origins, normalised; a wildcard, a path or a scheme other than http(s) is an error."""
    origins = list(origins)
    if "*" in origins:
        raise ValueError(
            '"*" is not allowed: it would let every web page open a WebSocket to this server with its '
            'visitors\' credentials; list each origin instead, e.g. ["https://dash.example.com"]'
        )
    for origin in origins:
        if not origin.lower().startswith(("http://", "https://")):
            raise ValueError(f"{origin[:100]!r} is not an http:// or https:// origin")
    try:
        return normalize_allowed_origins(origins)
    except ValueError:
        bad = next(o for o in origins if not _single_origin(o))
        raise ValueError(
            f"{bad[:100]!r} is not an origin: write scheme, host and optional port, without a path "
            "(https://dash.example.com:8443)"
        ) from None


def _single_origin(origin: str) -> bool:
    try:
        normalize_allowed_origins([origin])
    except ValueError:
        return False
    return True
