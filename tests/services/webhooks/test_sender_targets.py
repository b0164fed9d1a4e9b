"""Where the sender connects (SSRF), against a real receiver on 127.0.0.1: every spelling of a non-public
address is refused before a byte is sent, a name is resolved once and connected to as answered, and a
redirect is not followed. Each refusal is paired with the same request where private targets are
allowed, which the receiver gets: the spelling really leads to it."""

from __future__ import annotations

import asyncio
import socket

import pytest
from aiohttp.abc import AbstractResolver, ResolveResult
from hypothesis import HealthCheck, given, settings

from server.services.webhooks.sender import Message, Outcome, Sender, checked_socket
from server.services.webhooks.targets import TargetRefused
from tests.services.webhooks.receiver import Receiver, receiver
from tests.services.webhooks.spellings import ISSUE_SPELLINGS, networks, spellings

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
NAME = "hooks.example.test"  # .test names never resolve in the DNS: only the test's resolver knows it


class FixedResolver(AbstractResolver):
    """A name service that answers every name with the given addresses and counts the questions."""

    def __init__(self, *addresses: str) -> None:
        self.addresses = addresses
        self.asked: list[str] = []

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        self.asked.append(host)
        return [
            ResolveResult(
                hostname=host, host=a, port=port, family=socket.AF_INET, proto=0, flags=socket.AI_NUMERICHOST
            )
            for a in self.addresses
        ]

    async def close(self) -> None:
        pass


async def send(url: str, allow_private: bool, resolver: AbstractResolver | None = None) -> Outcome:
    sender = Sender(timeout=10, max_response_bytes=1024, allow_private=allow_private, resolver=resolver)
    try:
        return await sender.send(url, Message("msg_1", b"{}"), [SECRET], 1_700_000_000)
    finally:
        await sender.close()


def port_of(hook: Receiver) -> int:
    return int(hook.url.rsplit(":", 1)[1].split("/")[0])


async def refused_then_allowed(hook: Receiver, url: str, resolver: AbstractResolver | None = None) -> Outcome:
    refused = await send(url, allow_private=False, resolver=resolver)
    assert hook.received == []
    assert refused.status_code is None
    assert refused.error is not None
    assert refused.error.startswith("refused: ")
    allowed = await send(url, allow_private=True, resolver=resolver)
    assert allowed.status_code == 200, allowed.error
    assert len(hook.received) == 1
    return refused


@pytest.mark.parametrize("host", ISSUE_SPELLINGS)
async def test_a_spelling_of_loopback_is_refused_before_anything_is_sent(host: str) -> None:
    async with receiver() as hook:
        refused = await refused_then_allowed(hook, f"http://{host}:{port_of(hook)}/x")
    assert refused.error == "refused: 127.0.0.1 is a non-public address"


@pytest.mark.parametrize("host", ["[::ffff:\u2460\u2461\u2466.0.0.1]", "[::ffff:\uff11\uff12\uff17.0.0.1]"])
async def test_a_spelling_of_v4_mapped_loopback_is_refused_before_anything_is_sent(host: str) -> None:
    """yarl reads digits of other scripts inside brackets too (``ipaddress`` does); the socket's
    address is what is judged."""
    async with receiver() as hook:
        refused = await refused_then_allowed(hook, f"http://{host}:{port_of(hook)}/x")
    assert refused.error == "refused: ::ffff:127.0.0.1 is a non-public address"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spellings(networks("127.0.0.1/32")))
def test_every_spelling_of_loopback_is_refused_at_the_connection(spelled: tuple[str, str]) -> None:
    _, host = spelled

    async def attempt() -> None:
        async with receiver() as hook:
            await refused_then_allowed(hook, f"http://{host}:{port_of(hook)}/x")

    asyncio.run(attempt())


async def test_a_name_that_resolves_to_loopback_is_refused_and_an_allowed_one_is_connected_as_resolved() -> (
    None
):
    async with receiver() as hook:
        url = f"http://{NAME}:{port_of(hook)}/x"
        names = FixedResolver("127.0.0.1")
        refused = await refused_then_allowed(hook, url, names)
    assert refused.error == f"refused: {NAME} resolves to a non-public address (127.0.0.1)"
    # One question per connection, and the request went where the answer said (the system's resolver
    # knows no such name), with the name kept in the Host header.
    assert names.asked == [NAME, NAME]
    assert hook.received[0].headers["host"] == f"{NAME}:{port_of(hook)}"


async def test_a_name_with_any_non_public_address_is_refused() -> None:
    async with receiver() as hook:
        names = FixedResolver("93.184.216.34", "127.0.0.1")
        outcome = await send(f"http://{NAME}:{port_of(hook)}/x", allow_private=False, resolver=names)
        assert hook.received == []
    assert outcome.error == f"refused: {NAME} resolves to a non-public address (127.0.0.1)"


async def test_a_redirect_to_loopback_is_not_followed() -> None:
    """The first hop must be allowed to reach a local redirector at all; even so, the hop it names gets
    nothing and the attempt fails with the reason."""
    async with receiver() as target, receiver() as redirector:
        redirector.default = 307
        redirector.location = target.url
        outcome = await send(redirector.url, allow_private=True)
        assert len(redirector.received) == 1
        assert target.received == []
    assert outcome.status_code == 307
    assert not outcome.succeeded
    assert outcome.error == f"redirect not followed (to {target.url})"


@pytest.mark.parametrize(
    ("family", "sockaddr"),
    [
        (socket.AF_INET, ("127.0.0.1", 80)),
        (socket.AF_INET, ("169.254.169.254", 80)),
        (socket.AF_INET6, ("::ffff:10.0.0.1", 80, 0, 0)),
        (socket.AF_INET6, ("fe80::1%lo", 80, 0, 1)),
        (socket.AF_INET6, ("::", 80, 0, 0)),
    ],
)
def test_the_socket_for_a_non_public_address_is_never_made(
    family: socket.AddressFamily, sockaddr: tuple[object, ...]
) -> None:
    info = (family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr)
    with pytest.raises(TargetRefused, match="non-public address"):
        checked_socket(False)(info)  # type: ignore[arg-type]
    checked_socket(True)(info).close()  # type: ignore[arg-type]


def test_the_socket_for_a_public_address_is_made() -> None:
    info = (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", ("93.184.216.34", 443))
    checked_socket(False)(info).close()  # type: ignore[arg-type]
