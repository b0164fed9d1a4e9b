"""`flightdeck serve` logs in one format, its own records and uvicorn's: JSON lines with
FLIGHTDECK_LOG_FORMAT=json, each with the request id, and one record per GraphQL operation (tenant,
operation, type, duration, outcome)."""

from __future__ import annotations

import io
import json
import logging
import logging.config
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.server_process import ServerProcess
from server import logs
from server.db.migrate import upgrade
from server.request_id import bind_request_id, unbind_request_id


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


@pytest.fixture
def configured(request: pytest.FixtureRequest) -> Iterator[tuple[logs.ServerHandler, io.StringIO]]:
    """Logging as `serve` configures it (``request.param``: the format), writing to a buffer; the
    process's own logging is put back afterwards."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, logs.OPERATIONS.disabled)
    logging.config.dictConfig(logs.logging_config(request.param, "info"))
    handler = root.handlers[0]
    assert isinstance(handler, logs.ServerHandler)
    buffer = io.StringIO()
    handler.setStream(buffer)
    try:
        yield handler, buffer
    finally:
        root.handlers[:], root.level, logs.OPERATIONS.disabled = saved


def _both_ways(buffer: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """An operation record written directly, then the same through logging's general path."""
    token = bind_request_id("req-9")
    try:
        logs.log_operation_record("tenant-a", "Make", "mutation", 0.0123456, "user_error")
        with monkeypatch.context() as m:
            m.setattr(logs, "_direct_handler", lambda: None)
            logs.log_operation_record("tenant-a", "Make", "mutation", 0.0123456, "user_error")
    finally:
        unbind_request_id(token)
    direct, general = buffer.getvalue().splitlines()
    return direct, general


@pytest.mark.parametrize("configured", ["console", "json"], indirect=True)
def test_an_operation_line_written_directly_is_the_line_logging_would_write(
    configured: tuple[logs.ServerHandler, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    handler, buffer = configured
    monkeypatch.setattr(logging.getLogger(), "handlers", [handler])  # not pytest's capture handlers
    assert logs._direct_handler() is handler
    direct, general = _both_ways(buffer, monkeypatch)
    if handler.kind == "json":
        a, b = json.loads(direct), json.loads(general)
        assert list(a) == list(b)  # the same fields in the same order
        written = [datetime.fromisoformat(r.pop("time")) for r in (a, b)]
        assert abs((written[0] - written[1]).total_seconds()) < 1
        assert written[0].utcoffset() == timedelta(0)
        assert a == b
        assert a["duration_ms"] == 12.346
    else:
        # The time stamps may differ (the two lines are written moments apart); the rest is the same.
        stamps = [datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f") for line in (direct, general)]
        assert abs((stamps[0] - stamps[1]).total_seconds()) < 1
        assert direct[23:] == general[23:]
        assert direct.endswith("outcome=user_error [req-9]")


@pytest.mark.parametrize("configured", ["console"], indirect=True)
def test_any_other_logging_setup_takes_the_general_path(
    configured: tuple[logs.ServerHandler, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    handler, _ = configured
    extra = logging.Handler()
    for change in (
        lambda: logs.OPERATIONS.addHandler(extra),
        lambda: logs.OPERATIONS.addFilter(logging.Filter("elsewhere")),
        lambda: logging.getLogger().addHandler(extra),
        lambda: handler.setLevel(logging.WARNING),
        lambda: handler.addFilter(logging.Filter()),
        lambda: handler.setFormatter(logging.Formatter("%(message)s")),
        lambda: setattr(logs.OPERATIONS, "disabled", True),
    ):
        with monkeypatch.context() as m:
            for target in (logs.OPERATIONS, logging.getLogger(), handler):
                m.setattr(target, "filters", target.filters[:])
            m.setattr(logs.OPERATIONS, "handlers", [])
            m.setattr(logging.getLogger(), "handlers", [handler])
            m.setattr(handler, "formatter", handler.formatter)
            m.setattr(handler, "level", handler.level)
            m.setattr(logs.OPERATIONS, "disabled", False)
            assert logs._direct_handler() is handler
            change()
            logging.getLogger().manager._clear_cache()
            assert logs._direct_handler() is None
