"""Who may read /metrics: the deployment's operator, never a tenant (DESIGN.md rule 12).

The operator's credential is a token in the server's settings (``metrics_token``), as a scraper is
configured with one (Prometheus ``authorization.credentials``). API keys belong to tenants; even an
admin's is refused, since metrics count every tenant's operations, volumes and errors. In dev mode
(one developer, loopback only) a caller without credentials on loopback may read them.
"""

from __future__ import annotations

import hmac

from pydantic import SecretStr

from .hosts import is_loopback_name

FOR_OPERATORS = (
    "metrics span every tenant and are for the deployment's operator: send the metrics token "
    "(FLIGHTDECK_METRICS_TOKEN) as 'Authorization: Bearer <token>'; API keys, even an admin's, "
    "may not read them"
)


def metrics_refusal(
    authorization: str | None, token: SecretStr | None, *, dev_mode: bool, client: str | None
) -> tuple[int, str, str] | None:
    """None when the caller may read metrics, else (HTTP status, message, stable code)."""
    if authorization is not None:
        scheme, _, given = authorization.partition(" ")
        expected = token.get_secret_value().encode() if token is not None else None
        if (
            expected is not None
            and scheme.lower() == "bearer"
            and hmac.compare_digest(given.encode(), expected)
        ):
            return None
        return 403, FOR_OPERATORS, "FORBIDDEN"
    if dev_mode and client is not None and is_loopback_name(client):
        return None
    if token is None:
        return 403, "metrics are off: the operator sets FLIGHTDECK_METRICS_TOKEN to read them", "FORBIDDEN"
    return 401, FOR_OPERATORS, "UNAUTHENTICATED"
