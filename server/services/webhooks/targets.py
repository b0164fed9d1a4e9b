"""Which URLs a webhook may go to (SSRF): http(s) only, and only public addresses unless the operator
allows private ones (``webhook_allow_private_targets``).

The host judged is the one the HTTP client connects to: ``target_host`` normalises it exactly as the
sender's client does (yarl: IDNA/UTS-46, so full-width and circled digits and ideographic dots become
ASCII), never as ``urllib`` reads it. Checked twice: when an endpoint is saved (the URL's form, an
address literal, a name that is this machine by definition), and at every connection a delivery makes
(``sender.py``: every resolved address, and the address each socket connects to).
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from yarl import URL

from ...db.webhook_models import URL_LIMIT
from ..validation import Problems

IP = ipaddress.IPv4Address | ipaddress.IPv6Address

# What a host name may hold once IDNA-encoded; anything else (a percent sign, a control character) is
# passed to the resolver as is, where its meaning is the C library's, not ours.
_NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?")
# A last label that is a number makes the host an IPv4 address to the system resolver (inet_aton:
# 0x7f.1, 2130706433, 0177.0.0.1), and to URL parsers that follow WHATWG.
_NUMBER = re.compile(r"(0x[0-9a-f]*|[0-9]+)")
# Names that are this machine or its link by definition (RFC 6761, RFC 6762); others are judged by
# what they resolve to, at delivery.
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
_LOCAL_SUFFIXES = (".localhost", ".local")


class TargetRefused(OSError):
    """The URL's host is, or resolves to, an address deliveries may not go to. An ``OSError``, so that
    the client reports it as the reason a connection could not be made."""


def is_public(ip: IP) -> bool:
    """Globally routable unicast: not loopback, private, link-local, shared, reserved, multicast or
    unspecified (an IPv4-mapped or 6to4/NAT64-embedded address counts as the IPv4 address inside)."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour
        if inner is not None:
            return is_public(inner)
        if ip in ipaddress.IPv6Network("64:ff9b::/96"):
            return is_public(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return ip.is_global and not ip.is_multicast and not ip.is_reserved


def spelled(ip: IP) -> str:
    """An address as messages show it, alike on every Python: an IPv4-mapped IPv6 address keeps its
    dotted IPv4 tail (3.13 prints it so, earlier versions in hex)."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return f"::ffff:{ip.ipv4_mapped}"
    return str(ip)


def target_host(url: str) -> str:
    """The host the sender's client connects to for this URL: yarl's encoded host (lower case, IDNA,
    an address in its compressed form, IPv6 without brackets), trailing dots folded to one as aiohttp
    does. ValueError if the client could not use the URL."""
    host = URL(url).raw_host
    if not host:
        raise ValueError("no host")
    return host.rstrip(".") + "." if host.endswith("..") else host


def address_of(host: str) -> IP | None:
    """The address a canonical host is written as, or None for a name (an IPv6 zone is dropped)."""
    try:
        return ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return None


def allowed(address: IP, allow_private: bool) -> bool:
    """Whether a connection may go to this address."""
    return allow_private or is_public(address)


def host_problem(host: str, allow_private: bool) -> str | None:
    """Why a canonical host (``target_host``) cannot be saved, or None (names are not resolved here)."""
    address = address_of(host)
    if address is not None:
        if not allowed(address, allow_private):
            return (
                f"points at a non-public address ({spelled(address)}); "
                "the server's operator does not allow those"
            )
        return None
    if not _NAME.fullmatch(host):
        return f"has a host that is neither an address nor a name ({host!r})"
    labels = host.rstrip(".").split(".")
    if _NUMBER.fullmatch(labels[-1]):
        return f"has a numeric host that is not an IPv4 address of four decimal numbers ({host!r})"
    name = host.rstrip(".")
    if not allow_private and (name in _LOCAL_NAMES or name.endswith(_LOCAL_SUFFIXES)):
        return "points at this machine or its local network; the server's operator does not allow that"
    return None


def url_problem(url: str, allow_private: bool) -> str | None:
    """Why this URL cannot be an endpoint, or None (the host is not resolved here)."""
    if len(url.encode()) > URL_LIMIT:
        return f"is longer than {URL_LIMIT} bytes"
    if any(c.isspace() for c in url):
        return "must not contain whitespace"
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
    try:
        host = target_host(url)
    except ValueError as exc:
        return f"is not a valid URL ({exc})"
    return host_problem(host, allow_private)


def check_url(problems: Problems, url: str, allow_private: bool, field: list[str]) -> None:
    why = url_problem(url, allow_private)
    if why is not None:
        problems.add(f"url {why}", field)
