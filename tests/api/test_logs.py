"""`flightdeck serve` logs in one format, its own records and uvicorn's: JSON lines with
FLIGHTDECK_LOG_FORMAT=json, each with the request id, and one record per GraphQL operation (tenant,
operation, type, duration, outcome)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from bench.server_process import ServerProcess
from server.db.migrate import upgrade


def _serve(tmp_path: Path, log_format: str) -> tuple[ServerProcess, str, Path]:
    """A `flightdeck serve` process, ready; `_stop` ends it (ServerProcess waits as long as a loaded
    machine needs and ends the process itself when it does not come up)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'logs.db'}"
    upgrade(url)
    log = tmp_path / "server.log"
    server = ServerProcess(url, log=log, FLIGHTDECK_DATABASE_URL=url, FLIGHTDECK_LOG_FORMAT=log_format)
    try:
        server.__enter__()
    except RuntimeError as exc:
        raise AssertionError(f"the server did not start:\n{log.read_text()}") from exc
    return server, server.url, log


def _stop(server: ServerProcess) -> None:
    server.__exit__()


MAKE = 'mutation Make { startSkillExecution(sessionId: "s", skillName: "k") { skillExecution { id } } }'


def test_json_lines_carry_the_request_id_and_one_record_per_operation(tmp_path: Path) -> None:
    proc, base, log = _serve(tmp_path, "json")
    try:
        made = httpx.post(f"{base}/graphql", json={"query": MAKE}, headers={"x-request-id": "req-42"})
        assert made.headers["x-request-id"] == "req-42"
        refused = httpx.post(f"{base}/graphql", json={"query": '{ researchPlan(id: "zz") { id } }'})
        refused_id = refused.headers["x-request-id"]
    finally:
        _stop(proc)
    lines = log.read_text().splitlines()
    records: list[dict[str, Any]] = [json.loads(line) for line in lines]  # every line is one JSON object
    assert {"time", "level", "logger", "message", "request_id"} <= set(records[0])
    assert any(r["logger"].startswith("uvicorn") for r in records)  # uvicorn's records, same format
    operations = [r for r in records if r["logger"] == "server.operations"]
    assert {
        k: operations[0][k] for k in ("request_id", "tenant", "operation", "operation_type", "outcome")
    } == {
        "request_id": "req-42",
        "tenant": "default",
        "operation": "Make",
        "operation_type": "mutation",
        "outcome": "ok",
    }
    assert operations[0]["duration_ms"] > 0
    assert operations[1]["request_id"] == refused_id
    assert operations[1]["outcome"] == "error"
    about_refusal = [r for r in records if r["request_id"] == refused_id]
    assert not any("Traceback" in json.dumps(r) for r in about_refusal)  # an expected refusal: no traceback
    access = [r for r in records if r["logger"] == "uvicorn.access" and r["request_id"] == "req-42"]
    assert len(access) == 1


def test_the_console_format_stays_the_default_readable_one(tmp_path: Path) -> None:
    proc, base, log = _serve(tmp_path, "console")
    try:
        httpx.post(f"{base}/graphql", json={"query": MAKE}, headers={"x-request-id": "req-7"})
    finally:
        _stop(proc)
    text = log.read_text()
    line = next(line for line in text.splitlines() if "server.operations" in line)
    assert "operation=Make" in line
    assert "outcome=ok" in line
    assert line.endswith("[req-7]")
    assert not text.lstrip().startswith("{")
