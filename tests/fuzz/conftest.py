"""One fuzz target per module and parameter: SQLite and PostgreSQL, each in dev mode and with API keys."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from .target import Target, open_target

TARGETS = [
    pytest.param(("sqlite", "dev"), id="sqlite-dev"),
    pytest.param(("sqlite", "key"), id="sqlite-key"),
    pytest.param(("postgres", "dev"), id="postgres-dev", marks=pytest.mark.postgres),
    pytest.param(("postgres", "key"), id="postgres-key", marks=pytest.mark.postgres),
]


@pytest.fixture(scope="module", params=TARGETS)
def target(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    database, auth = request.param
    yield from open_target(request, tmp_path_factory.mktemp(f"fuzz-{database}-{auth}"), database, auth)


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


@pytest.fixture(autouse=True, scope="module")
def log_records_without_lone_surrogates() -> Iterator[None]:
    """The server logs the hostile documents it refuses, lone surrogates and all; pytest-xdist cannot
    send such a log line from its worker (UTF-8 refuses them), and fails the whole run. Escape them."""
    make_record = logging.getLogRecordFactory()

    def escaped(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        record.msg, record.args = _printable(record.getMessage()), None
        if record.exc_info:
            record.exc_text = _printable(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return record

    logging.setLogRecordFactory(escaped)
    yield
    logging.setLogRecordFactory(make_record)
