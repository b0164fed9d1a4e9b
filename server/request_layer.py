"""The one ASGI layer every request and WebSocket passes through before the routes.

It does, in one call and one wrapped ``send``, what four middlewares did one after the other (each one
an extra coroutine, a ``send`` wrapper and its own pass over the headers):

- keeps a WebSocket's own ``send`` in its scope for the frame writer (``realtime/frames.py``);
- the request id (``request_id.py``): taken from a plain ``X-Request-ID`` or made, set for everything
  that serves the request, answered in the header, and named in the log line and the 500 of an exception
  nothing else handled;
- the browser security headers (``security_headers.py``) on every HTTP response that does not set them;
- in dev mode, the ``Host`` check (``hosts.py``): requests to names other than loopback's and
  ``allowed_hosts`` are refused.

A response gets its headers in the same order as before: the app's own (without any ``x-request-id``),
then the security headers it lacks, then ``x-request-id``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .hosts import HostCheck
from .realtime.frames import keep_websocket_send
from .request_id import HEADER, bind_request_id, internal_error, plain_request_id, unbind_request_id
from .security_headers import content_security_policy

logger = logging.getLogger("server.requests")

_REQUEST_ID = HEADER.encode()
_FIXED_SECURITY = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
_SECURITY_NAMES = frozenset({b"content-security-policy", *(name for name, _ in _FIXED_SECURITY)})
_POLICIES_KEPT = 64  # distinct Host headers whose policy is kept made (a few in practice)


class RequestLayer:
    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.hosts = HostCheck(allowed_hosts)
        self._policies: dict[bytes | None, tuple[tuple[bytes, bytes], ...]] = {}
        self._allowed: dict[bytes | None, bool] = {}

    def _host_allowed(self, host: bytes | None) -> bool:
        """The dev-mode Host check, decided once per distinct header (as the policies are kept)."""
        allowed = self._allowed.get(host)
        if allowed is None:
            allowed = self.hosts.allows(host.decode("latin-1") if host is not None else None)
            if len(self._allowed) >= _POLICIES_KEPT:
                self._allowed.clear()
            self._allowed[host] = allowed
        return allowed

    def _security_headers(self, host: bytes | None) -> tuple[tuple[bytes, bytes], ...]:
        """The four headers for a request to ``host``; the policy names the host, so it is made once
        per distinct header (a bounded few, or made afresh when a client sends many)."""
        headers = self._policies.get(host)
        if headers is None:
            policy = content_security_policy(host.decode("latin-1") if host is not None else None)
            headers = ((b"content-security-policy", policy.encode("latin-1")), *_FIXED_SECURITY)
            if len(self._policies) >= _POLICIES_KEPT:
                self._policies.clear()
            self._policies[host] = headers
        return headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind != "http" and kind != "websocket":
            await self.app(scope, receive, send)
            return
        if kind == "websocket":
            keep_websocket_send(scope, send)
        host: bytes | None = None
        given: bytes | None = None
        for name, value in scope["headers"]:  # ASGI header names are lower case
            if name == b"host" and host is None:
                host = value
            elif name == _REQUEST_ID and given is None:
                given = value
        request_id = plain_request_id(given)
        token = bind_request_id(request_id)
        id_header = (_REQUEST_ID, request_id.encode())
        security = self._security_headers(host) if kind == "http" else ()
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            kind = message["type"]
            if kind == "http.response.start":
                started = True
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() != _REQUEST_ID]
                present = {k.lower() for k, _ in headers} & _SECURITY_NAMES
                headers += [h for h in security if h[0] not in present] if present else security
                headers.append(id_header)
                message = {**message, "headers": headers}
            elif kind == "websocket.accept":
                started = True
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() != _REQUEST_ID]
                headers.append(id_header)
                message = {**message, "headers": headers}
            await send(message)

        try:
            if getattr(scope["app"].state, "dev_mode", False) and not self._host_allowed(host):
                header = host.decode("latin-1") if host is not None else None
                await self.hosts.refuse(scope, send_with_headers, header)
                return
            await self.app(scope, receive, send_with_headers)
        except Exception:
            logger.exception("unexpected error [request %s]", request_id)
            if kind != "http":
                raise
            if not started:  # else the server closes the connection, the response unfinished
                await internal_error(send, request_id)
        finally:
            unbind_request_id(token)
