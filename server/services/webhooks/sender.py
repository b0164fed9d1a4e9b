"""One HTTP request of a delivery: signed, sent to a checked address, bounded in time and in what it reads.

Redirects are not followed (a 3xx is a failed attempt): following one would leave the checked address.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import httpx

from .signing import signature_header
from .targets import TargetRefused, resolve

USER_AGENT = "Flightdeck-Webhooks/1"
ERROR_LIMIT = 200


@dataclass(frozen=True)
class Message:
    msg_id: str
    body: bytes


@dataclass(frozen=True)
class Outcome:
    status_code: int | None
    error: str | None
    latency_ms: float

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class Sender:
    """Sends to one endpoint; one per endpoint worker, so its connections serve that endpoint only."""

    def __init__(self, *, timeout: float, max_response_bytes: int, allow_private: bool) -> None:
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self.allow_private = allow_private
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,  # no proxy from the environment: the checked address is where it goes
            limits=httpx.Limits(max_connections=4, max_keepalive_connections=2),
        )

    async def close(self) -> None:
        await self.client.aclose()

    async def send(self, url: str, message: Message, secrets: list[str], timestamp: int) -> Outcome:
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.timeout):
                status = await self._send(url, message, secrets, timestamp)
        except TargetRefused as exc:
            return Outcome(None, _short(f"refused: {exc}"), _ms(started))
        except TimeoutError:
            return Outcome(None, f"timed out after {self.timeout:g}s", _ms(started))
        except httpx.HTTPError as exc:
            why = str(exc) or type(exc).__name__
            return Outcome(None, _short(f"{type(exc).__name__}: {why}"), _ms(started))
        return Outcome(status, None, _ms(started))

    async def _send(self, url: str, message: Message, secrets: list[str], timestamp: int) -> int:
        target = await resolve(url, self.allow_private)
        parts = urlsplit(url)
        address = f"[{target.address}]" if ":" in target.address else target.address
        netloc = f"{address}:{parts.port}" if parts.port else address
        direct = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
        host_header = parts.netloc.rpartition("@")[2]
        headers = {
            "host": host_header,
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            "webhook-id": message.msg_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": signature_header(secrets, message.msg_id, timestamp, message.body),
        }
        extensions = {"sni_hostname": target.host} if parts.scheme == "https" else {}
        request = self.client.build_request(
            "POST", direct, content=message.body, headers=headers, extensions=extensions
        )
        response = await self.client.send(request, stream=True)
        try:
            read = 0
            async for chunk in response.aiter_raw():
                read += len(chunk)
                if read >= self.max_response_bytes:
                    break
        finally:
            await response.aclose()
        return response.status_code


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _short(text: str) -> str:
    return text[:ERROR_LIMIT]
