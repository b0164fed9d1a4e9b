"""The health probe's process: GET /healthz and POST ``{ latestSeq }``, over and over, one JSON line each.

A process of its own, because the server under test runs in the test's process: a request that holds
the GIL (a catastrophic regex, say) freezes the test's own event loop too, and a probe in that loop
would see nothing. Standard library only, so it starts fast.

    python -m tests.fuzz.pinger http://127.0.0.1:PORT [TOKEN] [EVERY]
"""

from __future__ import annotations

import http.client
import json
import sys
import time
from urllib.parse import urlsplit

QUERY = json.dumps({"query": "{ latestSeq }"}).encode()


def ping(host: str, port: int, what: str, token: str) -> tuple[bool, str]:
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        if what == "healthz":
            conn.request("GET", "/healthz")
        else:
            headers = {"content-type": "application/json"}
            if token:
                headers["authorization"] = f"Bearer {token}"
            conn.request("POST", "/graphql", body=QUERY, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status == 200, f"HTTP {response.status}"
    except OSError as exc:
        return False, exc.__class__.__name__
    finally:
        conn.close()


def main() -> None:
    url = urlsplit(sys.argv[1])
    token = sys.argv[2] if len(sys.argv) > 2 else ""
    every = float(sys.argv[3]) if len(sys.argv) > 3 else 0.1
    assert url.hostname is not None
    assert url.port is not None
    while True:
        for what in ("healthz", "latestSeq"):
            sent = time.monotonic()  # CLOCK_MONOTONIC: the same clock in every process on Linux
            ok, status = ping(url.hostname, url.port, what, token)
            took = time.monotonic() - sent
            print(
                json.dumps({"what": what, "sent": sent, "took": took, "ok": ok, "status": status}), flush=True
            )
        time.sleep(every)


if __name__ == "__main__":
    main()
