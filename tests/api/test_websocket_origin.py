"""A browser's WebSocket is accepted from the server's own origin only (scheme, host and port) or one
listed in allowed_origins: an https page is another origin than an http server on the same port."""

from __future__ import annotations

import pytest
import websockets
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin, Subprotocol

from tests.conftest import LiveServer

PROTOCOL = [Subprotocol("graphql-transport-ws")]


async def test_a_websocket_from_another_scheme_on_the_same_host_and_port_is_refused(
    live_server: LiveServer,
) -> None:
    https_page = Origin(live_server.url.replace("http://", "https://"))
    with pytest.raises(InvalidStatus) as refused:
        async with websockets.connect(live_server.ws_url, origin=https_page, subprotocols=PROTOCOL):
            pass
    assert refused.value.response.status_code == 403
    async with websockets.connect(
        live_server.ws_url, origin=Origin(live_server.url), subprotocols=PROTOCOL
    ) as own:
        assert own.subprotocol == "graphql-transport-ws"
