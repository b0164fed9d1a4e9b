"""One worker process of the workers benchmark: ``python -m bench.worker_process URL AGENT MODE OUT``.

MODE ``wake`` follows workAvailable; ``poll`` claims every second when idle. Every step is a no-op.
On SIGTERM it writes JSON to OUT: each claim's round trip, when it was answered, and each handler's
start (wall clock).
"""

from __future__ import annotations

import json
import sys
import time

from flightdeck_client import StepRun, Worker


def main() -> None:
    url, agent, mode, out = sys.argv[1:5]
    worker = Worker(
        url, agent, concurrency=4, wake_ups=mode == "wake", idle_poll=1.0 if mode == "poll" else 30.0
    )
    claims: list[float] = []
    answered: list[float] = []
    starts: list[float] = []

    def claimed(seconds: float) -> None:
        claims.append(seconds)
        answered.append(time.time())

    worker.on_claimed = claimed

    async def short(step: StepRun) -> None:
        starts.append(time.time())

    worker.default_handler = short
    worker.run()
    with open(out, "w") as f:
        json.dump({"claims": claims, "answered": answered, "starts": starts}, f)


if __name__ == "__main__":
    main()
