"""The flightdeck command: keys are shown once and stored hashed; dev mode binds only loopback."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from server.hosts import is_loopback


def _run(args: list[str], db: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{db}"}
    return subprocess.run(
        [sys.executable, "-m", "server", *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def test_keys_create_prints_the_key_once_and_stores_only_its_hash(tmp_path: Path) -> None:
    db = tmp_path / "keys.db"
    made = _run(["keys", "create", "--tenant", "acme", "--role", "reviewer", "--name", "ci"], db)
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith("fdk_")
    assert len(key) > 40
    with contextlib.closing(sqlite3.connect(db)) as conn:  # Python 3.13 warns about an unclosed one
        rows = conn.execute("SELECT tenant_id, role, key_hash FROM api_keys").fetchall()
    assert len(rows) == 1
    tenant, role, key_hash = rows[0]
    assert (tenant, role) == ("acme", "reviewer")
    assert key not in key_hash
    assert key.encode() not in db.read_bytes()
    listed = _run(["keys", "list"], db)
    assert "acme" in listed.stdout
    assert key not in listed.stdout


def test_keys_create_rejects_an_unknown_role(tmp_path: Path) -> None:
    made = _run(["keys", "create", "--tenant", "acme", "--role", "owner"], tmp_path / "k.db")
    assert made.returncode != 0
    assert "owner" in made.stderr


def test_serve_refuses_a_non_loopback_address_in_dev_mode(tmp_path: Path) -> None:
    served = _run(["serve", "--host", "0.0.0.0", "--port", "0"], tmp_path / "dev.db")
    assert served.returncode == 2
    assert "refusing to bind 0.0.0.0" in served.stderr


def test_serve_refuses_a_forced_dev_mode_beyond_loopback_even_with_keys(tmp_path: Path) -> None:
    db = tmp_path / "forced.db"
    assert _run(["keys", "create", "--tenant", "acme", "--role", "admin"], db).returncode == 0
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{db}", "FLIGHTDECK_DEV_MODE": "on"}
    served = subprocess.run(
        [sys.executable, "-m", "server", "serve", "--host", "0.0.0.0", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert served.returncode == 2
    assert "refusing to bind 0.0.0.0: dev_mode is 'on'" in served.stderr


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("0.0.0.0", False), ("10.1.2.3", False)],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
