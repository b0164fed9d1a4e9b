"""A private nginx in front of test instances, configured with the deployment guide's own nginx block.

It runs in the foreground with a prefix, config, pid file, logs and temp directories of its own under the
test's temporary directory, on a free loopback port: never the system's nginx service or its config.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import grp
import os
import re
import shutil
from pathlib import Path

from tests.conftest import _service_missing
from tests.deployment.guide import guide_block
from tests.realtime.instances import Endpoint
from tests.realtime.processes import Child, free_port, spawn, tail_of, until

UPSTREAM_HEADER = "X-Upstream-Addr"  # the test's addition: which instance answered


def _replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"the guide's nginx block should contain {old!r} once"
    return text.replace(old, new)


def site_config(listen: int, upstreams: list[int]) -> str:
    """The guide's nginx block with the test's ports, plus a header naming the instance that answered."""
    site = guide_block("nginx", "# /etc/nginx/conf.d/flightdeck.conf")
    site = _replace_once(site, "listen 80;", f"listen 127.0.0.1:{listen};")
    guide_ports = re.findall(r"server 127\.0\.0\.1:(\d+) ", site)
    assert len(guide_ports) == len(upstreams), guide_ports
    for guide_port, port in zip(guide_ports, upstreams, strict=True):
        site = _replace_once(site, f"server 127.0.0.1:{guide_port} ", f"server 127.0.0.1:{port} ")
    # `always`: on the 101 of a WebSocket handshake and on 502s too.
    return _replace_once(
        site,
        "location / {\n",
        f"location / {{\n        add_header {UPSTREAM_HEADER} $upstream_addr always;\n",
    )


class Nginx(Child, Endpoint):
    def __init__(self, binary: str, prefix: Path, upstreams: list[int]) -> None:
        self.binary = binary
        self.prefix = prefix
        self.port = free_port()
        self.log = prefix / "logs" / "error.log"
        self.upstreams = upstreams

    def _write_config(self) -> Path:
        for sub in ("logs", "temp"):
            (self.prefix / sub).mkdir(parents=True, exist_ok=True)
        (self.prefix / "site.conf").write_text(site_config(self.port, self.upstreams))
        temp = "\n".join(
            f"    {kind}_temp_path {self.prefix / 'temp' / kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        # nginx started as root would run its workers as "nobody", which cannot enter the test's
        # private temporary directory; the workers run as whoever runs the test.
        user = f"user {getpass.getuser()} {grp.getgrgid(os.getegid()).gr_name};" if os.geteuid() == 0 else ""
        config = self.prefix / "nginx.conf"
        config.write_text(
            f"""daemon off;
worker_processes 1;
pid {self.prefix / "nginx.pid"};
error_log {self.log} info;
{user}
events {{ worker_connections 512; }}
http {{
    access_log {self.prefix / "logs" / "access.log"};
{temp}
    include {self.prefix / "site.conf"};
}}
"""
        )
        return config

    async def start(self) -> None:
        config = self._write_config()
        argv = [self.binary, "-p", str(self.prefix), "-c", str(config), "-e", str(self.log)]
        self.proc = spawn(argv, dict(os.environ), self.prefix / "nginx.out")

        async def listening() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"nginx exited:\n{tail_of(self.prefix / 'nginx.out')}\n{tail_of(self.log)}"
                )
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.close()
                await writer.wait_closed()
                return True
            return False

        await until(listening, 10, f"nginx listening on {self.port}")


def nginx_binary() -> str:
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(binary).is_file():
        _service_missing("the proxy test needs nginx", "nginx")
    return binary
