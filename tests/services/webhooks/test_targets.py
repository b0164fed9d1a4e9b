"""Which webhook URLs and addresses are refused (SSRF), and the Standard Webhooks signature."""

from __future__ import annotations

import ipaddress

import pytest

from server.services.webhooks.signing import new_secret, sign, signature_header, verify
from server.services.webhooks.targets import is_public, url_problem


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",  # cloud metadata
        "100.64.0.1",  # shared address space
        "0.0.0.0",
        "224.0.0.1",
        "::1",
        "fe80::1",
        "fc00::1",
        "::ffff:127.0.0.1",  # IPv4-mapped loopback
        "2002:7f00:1::",  # 6to4 of 127.0.0.1
        "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    ],
)
def test_non_public_addresses_are_refused(address: str) -> None:
    assert not is_public(ipaddress.ip_address(address))
    host = f"[{address}]" if ":" in address else address
    assert url_problem(f"http://{host}/hook", allow_private=False) is not None
    assert url_problem(f"http://{host}/hook", allow_private=True) is None


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "::ffff:8.8.8.8"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/",
        "file:///etc/passwd",
        "http:///nohost",
        "http://user:pw@example.com/",
        "https://example.com/#frag",
        "http://example.com:0/",
        "http://example.com:99999/",
        "http://exa mple.com/",
        "https://" + "a" * 2100 + ".com/",
    ],
)
def test_malformed_urls_are_refused_even_when_private_targets_are_allowed(url: str) -> None:
    assert url_problem(url, allow_private=True) is not None


def test_a_public_name_is_accepted_when_saved() -> None:
    assert url_problem("https://hooks.example.com/flightdeck?x=1", allow_private=False) is None


def test_the_signature_is_standard_webhooks() -> None:
    # The example of the Standard Webhooks specification.
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'
    expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    assert sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body) == expected
    header = signature_header([new_secret(), secret], "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)
    assert verify(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body, header)
    assert not verify(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265331, body, header)
