"""Which webhook URLs and addresses are refused (SSRF), and the Standard Webhooks signature."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from yarl import URL

from server.services.webhooks.signing import new_secret, sign, signature_header, verify
from server.services.webhooks.targets import is_public, target_host, url_problem
from tests.services.webhooks.spellings import (
    ISSUE_SPELLINGS,
    NON_PUBLIC_V4,
    OTHER_ISSUE_ADDRESSES,
    PUBLIC_V4,
    spellings,
)


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
        "::7f00:1",  # IPv4-compatible (deprecated) 127.0.0.1
        "::ffff:0:7f00:1",  # IPv4-translated 127.0.0.1
        "240.0.0.1",  # reserved
        "255.255.255.255",
        "ff02::1",  # multicast, which Python counts as global
        "::",
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


FULL_WIDTH_LOCALHOST = "".join(chr(ord(c) + 0xFEE0) for c in "localhost")
SPELLED = [(host, "127.0.0.1") for host in ISSUE_SPELLINGS] + [
    (host, address) for address, hosts in OTHER_ISSUE_ADDRESSES.items() for host in hosts
]


@pytest.mark.parametrize(("host", "address"), SPELLED)
def test_a_spelling_the_client_reads_as_a_non_public_address_is_refused_when_saved(
    host: str, address: str
) -> None:
    url = f"http://{host}:8080/x"
    assert target_host(url) == address
    problem = url_problem(url, allow_private=False)
    assert problem is not None
    assert f"non-public address ({address})" in problem
    assert url_problem(url, allow_private=True) is None


@settings(max_examples=300)
@given(spellings(NON_PUBLIC_V4))
def test_every_spelling_of_a_non_public_address_is_judged_as_the_client_reads_it(
    spelled: tuple[str, str],
) -> None:
    address, host = spelled
    url = f"http://{host}/hook"
    assert URL(url).raw_host == address  # the sender's client connects to the address itself
    assert target_host(url) == address
    problem = url_problem(url, allow_private=False)
    assert problem is not None
    assert f"non-public address ({address})" in problem
    assert url_problem(url, allow_private=True) is None


@settings(max_examples=100)
@given(spellings(PUBLIC_V4))
def test_every_spelling_of_a_public_address_is_accepted_as_that_address(spelled: tuple[str, str]) -> None:
    address, host = spelled
    assert target_host(f"https://{host}/hook") == address
    assert url_problem(f"https://{host}/hook", allow_private=False) is None


@pytest.mark.parametrize("host", ["[::\uff11]", "[::ffff:\u2460\u2461\u2466.0.0.1]", "[f\uff4580::1]"])
def test_an_ipv6_literal_with_digits_of_other_scripts_is_refused_when_saved(host: str) -> None:
    assert url_problem(f"http://{host}/hook", allow_private=False) is not None


@pytest.mark.parametrize(
    "host",
    [
        "127.1",
        "0x7f.1",
        "0x7f000001",
        "2130706433",
        "0177.0.0.1",
        "017700000001",
        "127.0.0.1.",
        "1.2.3.4.5",
        "8.8",
    ],
)
def test_numeric_hosts_other_than_four_decimal_numbers_are_refused(host: str) -> None:
    """The system resolver reads them as addresses (0x7f.1 is 127.0.0.1): they are refused whatever
    the address, even where private targets are allowed, as the client refuses some of them itself."""
    problem = url_problem(f"http://{host}/hook", allow_private=True)
    assert problem is not None
    assert "numeric host" in problem


@pytest.mark.parametrize(
    "host",
    ["localhost", "LOCALHOST.", FULL_WIDTH_LOCALHOST, "api.localhost", "printer.local", "ip6-localhost"],
)
def test_names_that_are_this_machine_by_definition_are_refused_when_saved(host: str) -> None:
    url = f"http://{host}:8080/hook"
    problem = url_problem(url, allow_private=False)
    assert problem is not None
    assert "this machine" in problem
    assert url_problem(url, allow_private=True) is None


@pytest.mark.parametrize(
    "url", ["http://ex%41mple.com/", "http://e\u200bvil.com/", "http://exa\uff0fmple.com/"]
)
def test_hosts_the_client_would_not_read_as_a_name_are_refused(url: str) -> None:
    assert url_problem(url, allow_private=True) is not None


def test_a_public_name_is_accepted_when_saved() -> None:
    assert url_problem("https://hooks.example.com/flightdeck?x=1", allow_private=False) is None
    assert url_problem("https://bücher.example/hook", allow_private=False) is None
    assert target_host("https://bücher.example/hook") == "xn--bcher-kva.example"


def test_the_signature_is_standard_webhooks() -> None:
    # The example of the Standard Webhooks specification.
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'
    expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    assert sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body) == expected
    header = signature_header([new_secret(), secret], "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)
    assert verify(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body, header)
    assert not verify(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265331, body, header)
