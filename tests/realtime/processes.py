"""Child processes for the realtime tests: started so that none outlives its test."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from bench.server_process import free_port
from tests.waiting import patient

__all__ = ["free_port"]  # re-exported: the tests import it from here

REPO = Path(__file__).resolve().parents[2]

# Linux: a child started through this launcher gets SIGTERM when the test process dies, even by
# SIGKILL, so no server or redis-server outlives a crashed run. It then execs the real command.
_LAUNCHER = (
    "import ctypes, os, signal, sys\n"
    "ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG\n"
    "if os.getppid() != int(sys.argv[1]):\n"
    "    sys.exit(1)  # the parent is already gone\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)


def spawn(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    if sys.platform == "linux":
        argv = [sys.executable, "-c", _LAUNCHER, str(os.getpid()), *argv]
    with log.open("ab") as out:
        return subprocess.Popen(argv, env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)


def end_process(proc: subprocess.Popen[bytes], grace: float = 10) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


class Child:
    """A child process of a test: ended cleanly at teardown, or killed at will as in a crash."""

    proc: subprocess.Popen[bytes] | None = None

    def kill(self) -> None:
        """Gone at once, as in a crash: no clean shutdown."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            end_process(self.proc)
            self.proc = None


def tail_of(log: Path, lines: int = 40) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""


async def until(check: Callable[[], Awaitable[bool]], within: float, what: str) -> None:
    deadline = time.monotonic() + patient(within)
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {within}s")
        await asyncio.sleep(0.05)
