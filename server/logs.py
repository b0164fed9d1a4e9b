"""Logging for `flightdeck serve`: the server's and uvicorn's records in one format, console or JSON lines.

Every record carries the id of the request it was written for (``request_id``, empty outside one), and
each answered GraphQL operation writes one record on ``server.operations`` with the tenant, the
operation's name and type, its duration and its outcome, so a JSON log can be filtered like a table.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, Literal

from .request_id import current_request_id

LogFormat = Literal["console", "json"]
OPERATIONS = logging.getLogger("server.operations")

# A JSON line's first fields; the others a record carries (an operation's) follow.
JSON_FIELDS = "%(levelname)s %(name)s %(message)s %(request_id)s"


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to every record (empty when no request is being served)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = current_request_id() or ""
        record.__dict__.pop("color_message", None)  # uvicorn's terminal colours
        return True


def logging_config(log_format: LogFormat, level: str) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for the server and uvicorn (passed to ``uvicorn.run``)."""
    if log_format == "json":
        formatter: dict[str, Any] = {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": JSON_FIELDS,
            "rename_fields": {"levelname": "level", "name": "logger"},
            "timestamp": "time",  # ISO 8601, UTC
        }
    else:
        formatter = {"format": "%(asctime)s %(levelname)-7s %(name)s: %(message)s%(request_suffix)s"}
    handler = {
        "class": "logging.StreamHandler",
        "stream": "ext://sys.stderr",
        "formatter": "default",
        "filters": ["request_id"] if log_format == "json" else ["request_id", "console_suffix"],
    }
    loggers = {name: {"level": level.upper(), "handlers": [], "propagate": True} for name in _UVICORN}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "request_id": {"()": RequestIdFilter},
            "console_suffix": {"()": ConsoleSuffix},
        },
        "formatters": {"default": formatter},
        "handlers": {"default": handler},
        "loggers": loggers,
        "root": {"level": level.upper(), "handlers": ["default"]},
    }


_UVICORN = ("uvicorn", "uvicorn.error", "uvicorn.access")


class ConsoleSuffix(logging.Filter):
    """On the console: `` [request id]`` after the message, and an operation record's fields."""

    def filter(self, record: logging.LogRecord) -> bool:
        fields = record.__dict__  # a record's extra fields are its attributes
        parts = [f"{key}={fields[key]}" for key in OPERATION_FIELDS if key in fields]
        request_id = fields.get("request_id", "")
        record.request_suffix = (" " + " ".join(parts) if parts else "") + (
            f" [{request_id}]" if request_id else ""
        )
        return True


OPERATION_FIELDS = ("tenant", "operation", "operation_type", "duration_ms", "outcome")


def log_operation_record(tenant: str, name: str, op_type: str, seconds: float, outcome: str) -> None:
    """One line per answered GraphQL operation (a subscription's when it ends)."""
    OPERATIONS.info(
        "operation",
        extra={
            "tenant": tenant,
            "operation": name,
            "operation_type": op_type,
            "duration_ms": round(seconds * 1000.0, 3),
            "outcome": outcome,
        },
    )


def lean_records() -> None:
    """Records without what no format of ours prints: the caller's file and line (found by walking the
    stack for every record), the thread's, process's and task's names. Process-wide, so ``serve`` sets
    it (and the benchmark's reference servers, which run with the same logging)."""
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    if sys.version_info >= (3, 12):
        logging.logAsyncioTasks = False
