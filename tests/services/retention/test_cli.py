"""The commands an operator runs, as processes of their own on both databases: `flightdeck events
archive`, `export`, `restore` and `flightdeck ops size`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from server.clock import FakeClock
from server.services.runtime import Runtime
from tests.realtime.processes import REPO
from tests.services.retention.helpers import counter_of, exported, log_events


def _flightdeck(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FLIGHTDECK_DATABASE_URL": db_url}
    env.pop("FLIGHTDECK_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "server", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


async def test_archive_export_restore_and_size_from_the_command_line(
    runtime: Runtime, clock: FakeClock, db_url: str, tmp_path: Path
) -> None:
    db = runtime.db
    await log_events(db, clock, 40)
    before = await exported(db)
    out = tmp_path / "archives"

    archived = _flightdeck(db_url, "events", "archive", "--before", "26", "--out", str(out), "--batch", "10")
    assert archived.returncode == 0, archived.stderr
    assert "archived seqs 1..25 (25 events)" in archived.stdout
    assert await counter_of(db) == (40, 25)

    # A range reaching below the cut-off is refused with the stable code; one above it streams.
    refused = _flightdeck(db_url, "events", "export", "--from", "20")
    assert refused.returncode == 1
    assert "HISTORY_TRUNCATED" in refused.stderr
    assert "resumes at seq 26" in refused.stderr
    streamed = _flightdeck(db_url, "events", "export", "--from", "26", "--to", "30")
    assert streamed.returncode == 0, streamed.stderr
    assert streamed.stdout.splitlines() == before[25:30]

    (manifest,) = out.glob("*.json")
    for _ in range(2):  # idempotent
        restored = _flightdeck(db_url, "events", "restore", str(manifest))
        assert restored.returncode == 0, restored.stderr
    assert "restored 0 of 25 events" in restored.stdout
    assert await exported(db) == before
    assert await counter_of(db) == (40, 0)

    sized = _flightdeck(db_url, "ops", "size", "--json")
    assert sized.returncode == 0, sized.stderr
    report = json.loads(sized.stdout)
    events = next(t for t in report["tables"] if t["name"] == "events")
    assert events["rows"] == 40
    assert events["bytes"] > 0
    assert report["totalBytes"] >= events["bytes"]
    assert report["method"] in {"dbstat", "pg_total_relation_size"}


async def test_bad_cut_offs_are_refused_and_leave_the_log_alone(
    runtime: Runtime, clock: FakeClock, db_url: str, tmp_path: Path
) -> None:
    db = runtime.db
    await log_events(db, clock, 5)
    out = tmp_path / "out"
    for before in ("yesterday", "0", "9" * 30):
        done = _flightdeck(db_url, "events", "archive", "--before", before, "--out", str(out))
        assert done.returncode == 1, (before, done.stdout, done.stderr)
        assert "archive refused" in done.stderr
    assert await counter_of(db) == (5, 0)
    assert not out.exists()
    broken = tmp_path / "x.json"
    broken.write_text('{"format": "something else"}')
    done = _flightdeck(db_url, "events", "restore", str(broken))
    assert done.returncode == 1
    assert "not a flightdeck-events manifest" in done.stderr
