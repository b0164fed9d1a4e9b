"""`flightdeck serve` with a setting it cannot use stops before serving: exit status 2 and one line on
stderr naming the setting (no traceback), whether the setting came from the environment, the
configuration file or a flag."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CASES = [
    # (how it is set, setting, value as written there, what the line says)
    ("env", "stall_threshold_seconds", "inf", "must be a finite number above 0, up to 31536000"),
    ("file", "stall_threshold_seconds", "9223372036854775807", "must be a finite number above 0"),
    ("env", "port", "70000", "must be a finite number 0 to 65535"),
    ("file", "port", "-1", "must be a finite number 0 to 65535"),
    ("flag", "port", "70000", "(--port): must be a finite number 0 to 65535"),
    ("env", "feed_poll_seconds", "nan", "must be a finite number 0.01 to 3600"),
    ("env", "database_url", "mysql://db/flightdeck", "the driver 'mysql' is not supported"),
    ("env", "database_url", "postgresql+asyncpg://u:pw@127.0.0.1:1/none", "cannot use the database"),
    ("file", "broadcast_url", '"redis://[oops/0"', "not a URL"),
    ("env", "allowed_origins", '["*"]', '"*" is not allowed'),
    ("file", "allowed_hosts", '["dev.example:8000"]', "has a port"),
]


@pytest.mark.parametrize(("how", "name", "value", "says"), CASES)
def test_serve_stops_with_one_line_naming_a_bad_setting_and_exit_status_2(
    tmp_path: Path, how: str, name: str, value: str, says: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLIGHTDECK_") and not k.endswith("_URL")}
    env["DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp_path / 'never.db'}"
    args = [sys.executable, "-m", "server"]
    if how == "env":
        env["DATABASE_URL" if name == "database_url" else f"FLIGHTDECK_{name.upper()}"] = value
    elif how == "file":
        config = tmp_path / "flightdeck.toml"
        config.write_text(f"{name} = {value}\n")
        args += ["--config", str(config)]
    # A flag would win over the environment and the file: --port only where the port is not the case.
    args += (
        ["serve", "--port", value if how == "flag" else "0"] if how == "flag" or name != "port" else ["serve"]
    )
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-3000:]
    assert len(lines) == 1, done.stderr[-3000:]
    assert name in lines[0], lines[0]
    assert says in lines[0], lines[0]
    assert "pw@" not in lines[0]  # a URL's password is never echoed
    assert not (tmp_path / "never.db").exists()  # stopped before touching the database
