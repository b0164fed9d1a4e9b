"""A worker process for the client tests: ``python -m tests.clients.worker_app URL AGENT LOG``.

Every handler appends a line to LOG (``O_APPEND``: lines from several processes never interleave):
``ready <pid>`` (its SIGTERM handler is in), ``start <step> <attempt> <pid>``,
``done <step> <attempt> <pid>``, ``undo <step> <pid>``.
Step names steer it: ``hang*`` hangs on its first attempt (to be killed), the steps named in $FAIL_STEPS fail
as VALIDATION after half a second, anything else completes at once; the undo of a step named
``*-undo-hangs`` hangs until the worker cancels it. $GRACE: the worker's grace on SIGTERM (seconds).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable

from flightdeck_client import StepRun, ValidationFailed, Worker
from flightdeck_client.generated.fragments import CompensationFields


def main() -> None:
    url, agent, log = sys.argv[1:4]
    grace = float(os.environ.get("GRACE", "5.0"))
    worker = Worker(url, agent, concurrency=4, heartbeat_seconds=0.2, idle_poll=5.0, grace=grace)

    def note(line: str) -> None:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, f"{line} {os.getpid()}\n".encode())
        finally:
            os.close(fd)

    async def handle(step: StepRun) -> dict[str, object]:
        note(f"start {step.name} {step.attempt}")
        if step.name.startswith("hang") and step.attempt == 1:
            # Hangs until the test kills this process (kill -9); the fake clock times the step out.
            await asyncio.Event().wait()
        if step.name in os.environ.get("FAIL_STEPS", "").split(","):
            await asyncio.sleep(0.5)
            raise ValidationFailed("the output did not match its schema")
        note(f"done {step.name} {step.attempt}")
        return {"by": agent}

    async def undo(compensation: CompensationFields) -> None:
        note(f"undo {compensation.step_name}")
        if compensation.step_name.endswith("-undo-hangs"):
            await asyncio.Event().wait()  # until SIGTERM's grace ends and the worker cancels it

    for name in sys.argv[4:]:
        worker.step(name)(handle)
        worker.undo(name)(undo)
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(serve(worker, note))


async def serve(worker: Worker, note: Callable[[str], None]) -> None:
    running = asyncio.create_task(worker.serve())
    # serve() installs its signal handlers before its first await: once it has run that far, a SIGTERM
    # is the worker's to handle. Until then the default action would kill the process.
    await asyncio.sleep(0)
    note("ready")
    await running


if __name__ == "__main__":
    main()
