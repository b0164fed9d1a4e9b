"""`flightdeck backup`: a consistent copy of a SQLite database, taken while the server runs and writes.

SQLite's online backup API copies every page in one step, inside one read transaction: the copy holds
exactly what was committed when that transaction began, nothing half-written. In WAL mode, which the
server uses, a reader never blocks the writer, so serving goes on meanwhile. The copy is written beside
its destination, switched to a rollback journal (one self-contained file), checked with
``PRAGMA integrity_check``, and only then renamed into place: a failed backup leaves nothing at PATH.

PostgreSQL has ``pg_dump`` for this; docs/deployment.md has the recipe.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

BUSY_TIMEOUT_MS = 10_000


class BackupError(Exception):
    pass


@dataclass(frozen=True)
class Backup:
    path: Path
    bytes: int
    events: int
    revision: str


def backup_sqlite(database_url: str, dest: Path) -> Backup:
    """Copy the SQLite database at ``database_url`` to ``dest``, which must not exist yet."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        raise BackupError(
            f"flightdeck backup copies SQLite databases; for {url.get_backend_name()} use its own tool "
            "(PostgreSQL: pg_dump, see docs/deployment.md)"
        )
    source = Path(url.database or "")
    if not source.is_file():  # connecting would create an empty database and back that up
        raise BackupError(f"no SQLite database at {source}")
    if dest.exists():
        raise BackupError(f"{dest} exists; choose a new name (backups are never overwritten)")
    partial = dest.with_name(f".{dest.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        with (
            contextlib.closing(sqlite3.connect(source)) as src,
            contextlib.closing(sqlite3.connect(partial)) as dst,
        ):
            src.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            src.backup(dst)  # pages=-1: every page in one step, so one snapshot
            dst.execute("PRAGMA journal_mode=DELETE")
            problems = [row[0] for row in dst.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise BackupError(f"the copy failed its integrity check: {problems[:5]}")
            events = dst.execute("SELECT count(*) FROM events").fetchone()[0]
            revision = ", ".join(row[0] for row in dst.execute("SELECT version_num FROM alembic_version"))
        os.replace(partial, dest)
    except sqlite3.Error as exc:
        raise BackupError(f"backup failed: {exc}") from exc
    finally:
        partial.unlink(missing_ok=True)
    return Backup(dest, dest.stat().st_size, int(events), revision)
