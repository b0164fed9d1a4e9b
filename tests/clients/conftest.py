"""The client tests drive a real server on SQLite only: what they check is the client's behaviour (the
worker processes, the wake-ups, the heartbeats); the server's behaviour on both databases, the same
claims, timeouts and wake-ups included, is checked in tests/services and tests/realtime."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def db_url(tmp_path: Path, sqlite_template: Path) -> str:
    path = tmp_path / "flightdeck.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite+aiosqlite:///{path}"
