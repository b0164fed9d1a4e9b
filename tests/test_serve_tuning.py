"""`flightdeck serve`'s process settings for speed: the access log can be turned off,
and every garbage collection is timed into /metrics (start-up's own collection before gc.freeze too)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench.server_process import ServerProcess
from server.db.migrate import upgrade

QUERY = {"query": "{ researchPlans(first: 5) { edges { node { id } } } }"}


def _gc_collections(base: str) -> dict[str, float]:
    text = httpx.get(f"{base}/metrics").text
    return {
        s.labels["generation"]: s.value
        for family in text_string_to_metric_families(text)
        if family.name == "flightdeck_gc_pause_seconds"
        for s in family.samples
        if s.name.endswith("_count")
    }


def _serve(tmp_path: Path, **env: str) -> ServerProcess:
    url = f"sqlite+aiosqlite:///{tmp_path / 'tuning.db'}"
    upgrade(url)
    return ServerProcess(url, log=tmp_path / "server.log", FLIGHTDECK_LOG_FORMAT="json", **env)


def _loggers(server: ServerProcess) -> list[str]:
    assert server.log is not None
    return [json.loads(line)["logger"] for line in server.log.read_text().splitlines()]


def test_no_access_log_and_every_collection_timed_from_start_up_on(tmp_path: Path) -> None:
    # The access log's default (on) is checked in tests/api/test_logs.py.
    with _serve(tmp_path, FLIGHTDECK_ACCESS_LOG="false", FLIGHTDECK_GC_THRESHOLD="100") as server:
        at_start = _gc_collections(server.url)
        assert at_start.get("2", 0) >= 1  # the full collection before gc.freeze
        for _ in range(20):
            assert httpx.post(f"{server.url}/graphql", json=QUERY).status_code == 200
        later = _gc_collections(server.url)
        assert later["0"] > at_start.get("0", 0)  # a young collection every 100 allocations
        gc = server.gc_pauses()
        assert gc["seconds"] > 0
        assert gc["cpu_seconds"] > 0
    loggers = _loggers(server)
    assert loggers.count("server.operations") == 20
    assert "uvicorn.access" not in loggers
