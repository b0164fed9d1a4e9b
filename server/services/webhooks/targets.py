"""Which URLs a webhook may go to (SSRF): http(s) only, and only public addresses unless the operator
allows private ones (``webhook_allow_private_targets``).

Checked twice: when an endpoint is saved (the URL's form, and an address literal), and at every
connection a delivery makes (``sender.py``: the resolved addresses, and an address literal).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from ...db.webhook_models import URL_LIMIT
from ..validation import Problems

IP = ipaddress.IPv4Address | ipaddress.IPv6Address


class TargetRefused(Exception):
    """The URL's host is, or resolves to, an address deliveries may not go to."""


def is_public(ip: IP) -> bool:
    """Globally routable unicast: not loopback, private, link-local, shared, reserved, multicast or
    unspecified (an IPv4-mapped or 6to4/NAT64-embedded address counts as the IPv4 address inside)."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour
        if inner is not None:
            return is_public(inner)
        if ip in ipaddress.IPv6Network("64:ff9b::/96"):
            return is_public(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return ip.is_global and not ip.is_multicast


def url_problem(url: str, allow_private: bool) -> str | None:
    """Why this URL cannot be an endpoint, or None (the host is not resolved here)."""
    if len(url.encode()) > URL_LIMIT:
        return f"is longer than {URL_LIMIT} bytes"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"is not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "must be an http:// or https:// URL"
    if not parts.hostname:
        return "has no host"
    if parts.username is not None or parts.password is not None:
        return "must not carry a user name or password"
    if parts.fragment:
        return "must not have a #fragment"
    if port == 0:
        return "has port 0"
    if any(c.isspace() for c in url):
        return "must not contain whitespace"
    literal = _literal(parts.hostname)
    if literal is not None and not allow_private and not is_public(literal):
        return f"points at a non-public address ({literal}); the server's operator does not allow those"
    if literal is None and not allow_private and parts.hostname.rstrip(".").lower() in _LOCAL_NAMES:
        return "points at this machine; the server's operator does not allow that"
    return None


_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


def check_url(problems: Problems, url: str, allow_private: bool, field: list[str]) -> None:
    why = url_problem(url, allow_private)
    if why is not None:
        problems.add(f"url {why}", field)


def _literal(host: str) -> IP | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None
