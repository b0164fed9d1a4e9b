"""Loopback addresses and names, and the ``Host`` check that keeps dev mode to loopback callers.

In dev mode every request without a key is the admin, so any web page the developer opens could
call the server if its name resolved to 127.0.0.1: DNS rebinding. The browser then still sends the
page's own name as ``Host``; refusing every ``Host`` that is not a loopback name (or listed in
``allowed_hosts``) closes that door.
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
from collections.abc import Iterable

from starlette.types import Scope, Send

HOST_NOT_ALLOWED = "HOST_NOT_ALLOWED"
_HOST_NAME = re.compile(r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?")


def _loopback_address(address: str) -> bool:
    """127.0.0.0/8, ::1, and ::ffff:127.x.x.x (IPv4-mapped), alike on every Python.

    Python 3.13 counts an IPv4-mapped loopback address as loopback and 3.11 does not; it is one.
    """
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def is_loopback(host: str) -> bool:
    """Whether a bind address (a name is resolved) is loopback only."""
    if host == "localhost":
        return True
    try:
        return _loopback_address(host)
    except ValueError:
        try:
            return all(_loopback_address(str(a[4][0])) for a in socket.getaddrinfo(host, None))
        except OSError:
            return False


def host_name(header: str) -> str:
    """The name in a ``Host`` header, without its port, in lower case: ``[::1]:80`` is ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        name, bracket, _ = header[1:].partition("]")
        return name if bracket else ""
    name, _, _ = header.partition(":")
    return name.removesuffix(".")


def is_loopback_name(name: str) -> bool:
    """``localhost``, a name under ``.localhost`` (RFC 6761), 127.0.0.0/8 or ::1; never resolved."""
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return _loopback_address(name)
    except ValueError:
        return False


def check_allowed_host(entry: str) -> str:
    """An ``allowed_hosts`` entry as the Host check compares it; a port, scheme, path or wildcard is an error
    (the check ignores the port a request names, so one would never match)."""
    name = entry.strip().lower()
    try:
        ipaddress.IPv6Address(name.removeprefix("[").removesuffix("]"))
    except ValueError:
        pass
    else:
        return f"[{name.removeprefix('[').removesuffix(']')}]"
    if "://" in name or "/" in name:
        raise ValueError(
            f"{entry[:100]!r} is not a host name: list the name alone (dev.example), no scheme or path"
        )
    if ":" in name:
        bare = name.rsplit(":", 1)[0]
        raise ValueError(
            f"{entry[:100]!r} has a port: list the host name alone ({bare[:100]!r}); requests to any "
            "port of a listed name are answered"
        )
    if not _HOST_NAME.fullmatch(name) or len(name) > 253:
        raise ValueError(
            f"{entry[:100]!r} is not a host name (letters, digits, '-', '_' and dots; no wildcards)"
        )
    return name


class HostCheck:
    """In dev mode, requests addressed to any name but loopback's and ours are refused (by the request
    layer, ``server/request_layer.py``, which reads dev mode from ``app.state.dev_mode``)."""

    def __init__(self, allowed_hosts: Iterable[str] = ()) -> None:
        self.allowed = {host_name(h) for h in allowed_hosts}

    def allows(self, header: str | None) -> bool:
        if not header:
            return False
        name = host_name(header)
        return bool(name) and (is_loopback_name(name) or name in self.allowed)

    async def refuse(self, scope: Scope, send: Send, header: str | None) -> None:
        if scope["type"] == "websocket":
            # Closing before accepting answers the handshake with HTTP 403.
            await send({"type": "websocket.close", "code": 4403, "reason": "Forbidden"})
            return
        message = (
            "this server runs in dev mode (no authentication) and answers only requests addressed to "
            f"localhost, 127.0.0.1 or [::1], not to {(header or '')[:100]!r}; list other names in "
            "allowed_hosts, or create an API key and restart"
        )
        body = json.dumps({"errors": [{"message": message, "extensions": {"code": HOST_NOT_ALLOWED}}]})
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body.encode())).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body.encode()})
