"""A real `flightdeck serve` process for the benchmarks."""

from __future__ import annotations

import fcntl
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

# Ports handed to servers that another process starts. A port the kernel hands out for port 0 is free
# only until the socket closes: another server started at the same moment (a second test worker, a
# second test run on the machine) or any outgoing connection may take it before the child binds, and a
# readiness probe would then be answered by someone else's server. So ports come from below the
# kernel's ephemeral range (never used for outgoing connections), each claimed by a lock file that
# this process holds until it exits: no two live processes on the machine hand out the same port.
_PORT_LOCKS = Path(os.environ.get("TMPDIR", "/tmp")) / "flightdeck-ports"
_held: list[int] = []  # descriptors of the lock files this process holds


def _ephemeral_start() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A port on 127.0.0.1 that nobody listens on and no other live process will hand out."""
    _PORT_LOCKS.mkdir(parents=True, exist_ok=True)
    high = _ephemeral_start()
    low = max(1024, high - 12_000)
    for _ in range(2_000):
        port = random.randrange(low, high)
        fd = os.open(_PORT_LOCKS / str(port), os.O_CREAT | os.O_RDWR, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                os.close(fd)
                continue
        _held.append(fd)
        return port
    raise RuntimeError(f"no free port between {low} and {high}")


def process_cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process on this machine so far (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class ServerProcess:
    def __init__(
        self,
        database_url: str,
        log: Path | None = None,
        *,
        argv: list[str] | None = None,
        cwd: str | None = None,
        **env: str,
    ) -> None:
        """``log``: a file for the server's output (default: discarded); ``argv``: another server to run
        instead of ``flightdeck serve`` (its arguments after ``python -m``, ``{port}`` replaced); ``cwd``:
        where it runs (``python -m`` imports from there first, before ``PYTHONPATH``)."""
        self.log = log
        self.argv = argv
        self.cwd = cwd
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/graphql"
        self.env = {**os.environ, "DATABASE_URL": database_url, **env}
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ServerProcess:
        out = self.log.open("wb") if self.log else subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", *(a.replace("{port}", str(self.port)) for a in self.argv)]
                if self.argv
                else [
                    sys.executable,
                    "-m",
                    "server",
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                env=self.env,
                cwd=self.cwd,
                stdout=out,
                stderr=out,
            )
        finally:
            if self.log:
                out.close()  # type: ignore[union-attr]
        deadline = time.monotonic() + 300  # a loaded machine starts slowly (seen: over 120 s at load 18)
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        self.__exit__()  # not left running
        raise RuntimeError("server did not start")

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def cpu_seconds(self) -> float:
        """User and system CPU time the server process has used so far."""
        assert self.proc is not None
        return process_cpu_seconds(self.proc.pid)

    def gc_pauses(self) -> dict[str, float]:
        """The server's garbage collections so far (its ``flightdeck_gc_pause_seconds`` histogram):
        their count, total seconds (wall: pauses), CPU seconds, and how many took longer than 10 ms."""
        text = httpx.get(f"{self.url}/metrics", timeout=10).text
        totals = {"count": 0.0, "seconds": 0.0, "cpu_seconds": 0.0, "over_10ms": 0.0}
        for family in text_string_to_metric_families(text):
            if family.name == "flightdeck_gc_cpu_seconds":
                totals["cpu_seconds"] = sum(s.value for s in family.samples if s.name.endswith("_total"))
            if family.name != "flightdeck_gc_pause_seconds":
                continue
            for sample in family.samples:
                if sample.name.endswith("_count"):
                    totals["count"] += sample.value
                    totals["over_10ms"] += sample.value
                elif sample.name.endswith("_sum"):
                    totals["seconds"] += sample.value
                elif sample.name.endswith("_bucket") and sample.labels["le"] == "0.01":
                    totals["over_10ms"] -= sample.value
        return totals

    def rss_kb(self) -> int:
        return self._status_kb("VmRSS:")

    def peak_rss_kb(self) -> int:
        """The most resident memory the server has had at any moment so far (VmHWM)."""
        return self._status_kb("VmHWM:")

    def _status_kb(self, field: str) -> int:
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
        raise RuntimeError(f"no {field}")
