"""Archive, then delete: a tenant's oldest events go to self-describing files before they leave the log.

An archive is two files in a directory of the operator's choosing: ``<name>.jsonl.gz``, the events as
JSON Lines (one object a line, in seq order, the same text ``export`` writes), and ``<name>.json``, its
manifest (tenant, first and last seq, count, the SHA-256 of the uncompressed lines, the format's
version). The events are written and read back (checksum, count, gap-free seqs) before a single row is
deleted; the delete then goes in batches of consecutive seqs, one short transaction each, so writers
wait at most one batch. Each batch's transaction also advances the tenant's ``archived_through`` (the
earliest seq a cursor can resume after) and pauses the webhook endpoints whose cursor it overtook, so
nothing reads a log with a hole it does not know about.

Sequence numbers never change: the events above the cut-off keep theirs, and a restore puts the archived
ones back under their own (``restore``, idempotent).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Table, and_, delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from ...db.engine import Database
from ...db.models import Event, TenantCounter
from ...db.webhook_models import WebhookDelivery, WebhookEndpoint
from ...limits import SHORT_TEXT
from .pacing import Paced
from .truncation import HISTORY_TRUNCATED, HistoryTruncated

FORMAT = "flightdeck-events"
FORMAT_VERSION = 1
READ_PAGE = 2_000
DELETE_BATCH = 1_000
EVENTS = cast(Table, Event.__table__)
_COLUMNS = (
    Event.seq,
    Event.entity_type,
    Event.entity_id,
    Event.root_type,
    Event.root_id,
    Event.kind,
    Event.from_state,
    Event.to_state,
    Event.actor,
    Event.data,
    Event.created_at,
)


class ArchiveError(Exception):
    """A refused archive, restore or export: nothing was deleted or written."""


@dataclass(frozen=True)
class Manifest:
    tenant: str
    first_seq: int
    last_seq: int
    count: int
    sha256: str
    created_at: str
    format: str = FORMAT
    version: int = FORMAT_VERSION

    def as_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "version": self.version,
            "tenant": self.tenant,
            "firstSeq": self.first_seq,
            "lastSeq": self.last_seq,
            "count": self.count,
            "sha256": self.sha256,
            "checksumOf": "the uncompressed JSON Lines",
            "createdAt": self.created_at,
            "eventFields": [_WIRE[c.key] for c in _COLUMNS],
        }

    @staticmethod
    def parse(raw: Any) -> Manifest:
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise ArchiveError(f"not a {FORMAT} manifest")
        if raw.get("version") != FORMAT_VERSION:
            raise ArchiveError(f"manifest version {raw.get('version')!r}; this server reads {FORMAT_VERSION}")
        try:
            manifest = Manifest(
                tenant=str(raw["tenant"]),
                first_seq=int(raw["firstSeq"]),
                last_seq=int(raw["lastSeq"]),
                count=int(raw["count"]),
                sha256=str(raw["sha256"]),
                created_at=str(raw["createdAt"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ArchiveError(f"manifest field missing or malformed: {exc}") from None
        if not 0 < len(manifest.tenant.encode()) <= 64:
            raise ArchiveError("manifest tenant must be 1 to 64 bytes")
        if manifest.first_seq < 1 or manifest.count != manifest.last_seq - manifest.first_seq + 1:
            raise ArchiveError("manifest seqs do not add up: count must be lastSeq - firstSeq + 1")
        return manifest


@dataclass(frozen=True)
class Archived:
    manifest: Manifest
    events_path: Path
    manifest_path: Path
    deleted: int


# The wire names of the event's fields, in the order every line writes them.
_WIRE = {
    "seq": "seq",
    "entity_type": "entityType",
    "entity_id": "entityId",
    "root_type": "rootType",
    "root_id": "rootId",
    "kind": "kind",
    "from_state": "fromState",
    "to_state": "toState",
    "actor": "actor",
    "data": "data",
    "created_at": "createdAt",
}


def event_line(row: Any) -> str:
    """One event as a JSON Lines line (without the newline): the archive's and ``export``'s text."""
    record = {_WIRE[c.key]: getattr(row, c.key) for c in _COLUMNS}
    at: datetime = record["createdAt"]
    record["createdAt"] = at.astimezone(UTC).isoformat(timespec="microseconds")
    # ASCII: a line separator inside a string (U+2028) stays escaped, so any line splitter reads one
    # event a line.
    return json.dumps(record, separators=(",", ":"))


def _row_of(tenant: str, record: dict[str, Any]) -> dict[str, Any]:
    values = {key: record[wire] for key, wire in _WIRE.items()}
    values["created_at"] = datetime.fromisoformat(values["created_at"]).astimezone(UTC)
    values["tenant_id"] = tenant
    return values


async def _counter(db: Database, tenant_id: str) -> tuple[int, int]:
    """(last_seq, archived_through) as committed; (0, 0) for a tenant without events."""
    async with db.read_connection() as conn:
        row = (
            await conn.execute(
                select(TenantCounter.last_seq, TenantCounter.archived_through).where(
                    TenantCounter.tenant_id == tenant_id
                )
            )
        ).first()
    return (int(row[0]), int(row[1])) if row else (0, 0)


async def cutoff_for_time(db: Database, tenant_id: str, before: datetime) -> int:
    """The last seq to archive for "events created before ``before``": everything ahead of the first event
    at or after it (the log's order is seq order; a clock that stepped back archives nothing newer)."""
    last, _ = await _counter(db, tenant_id)
    async with db.read_connection() as conn:
        first_kept = await conn.scalar(
            select(Event.seq)
            .where(Event.tenant_id == tenant_id, Event.seq <= last, Event.created_at >= before)
            .order_by(Event.seq)
            .limit(1)
        )
    return last if first_kept is None else int(first_kept) - 1


async def read_range(db: Database, tenant_id: str, first: int, last: int) -> AsyncIterator[list[Any]]:
    """The events with ``first <= seq <= last`` in seq order, a page at a time (Core rows)."""
    after = first - 1
    while after < last:
        async with db.read_connection() as conn:
            rows = (
                await conn.execute(
                    select(*_COLUMNS)
                    .where(Event.tenant_id == tenant_id, Event.seq > after, Event.seq <= last)
                    .order_by(Event.seq)
                    .limit(READ_PAGE)
                )
            ).all()
        if not rows:
            return
        yield list(rows)
        after = rows[-1].seq


async def export_lines(db: Database, tenant_id: str, first: int, last: int | None) -> AsyncIterator[str]:
    """``export``: the events of ``first..last`` (None: to the newest) as JSON Lines lines.

    HistoryTruncated when ``first`` lies below the earliest retained seq: a range with a hole is never
    handed out as if it were whole."""
    newest, archived = await _counter(db, tenant_id)
    if first < 1 or (last is not None and last < first):
        raise ArchiveError("--from must be at least 1 and --to at least --from")
    if first <= archived:
        raise HistoryTruncated(archived + 1)
    upto = newest if last is None else min(last, newest)
    async for rows in read_range(db, tenant_id, first, upto):
        for row in rows:
            yield event_line(row)


def _names(out: Path, tenant: str, first: int, last: int) -> tuple[Path, Path]:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in tenant)
    stem = f"events-{safe}-{first:012d}-{last:012d}"
    return out / f"{stem}.jsonl.gz", out / f"{stem}.json"


def verify(events_path: Path, manifest: Manifest) -> None:
    """Re-read an archive's events: the checksum, the count and gap-free seqs from firstSeq to lastSeq."""
    digest = hashlib.sha256()
    expected = manifest.first_seq
    try:
        with gzip.open(events_path, "rb") as lines:
            for line in lines:
                digest.update(line)
                seq = json.loads(line)["seq"]
                if seq != expected:
                    raise ArchiveError(f"{events_path}: seq {seq} where {expected} was expected")
                expected += 1
    except (OSError, EOFError, ValueError, KeyError, TypeError) as exc:
        raise ArchiveError(f"{events_path} cannot be read back: {exc}") from None
    if expected - manifest.first_seq != manifest.count:
        raise ArchiveError(
            f"{events_path} holds {expected - manifest.first_seq} events, not {manifest.count}"
        )
    if digest.hexdigest() != manifest.sha256:
        raise ArchiveError(f"{events_path}: checksum does not match its manifest")


async def archive(
    db: Database,
    tenant_id: str,
    through: int,
    out: Path,
    now: datetime,
    *,
    batch: int = DELETE_BATCH,
) -> Archived | None:
    """Archive the tenant's retained events up to seq ``through`` into ``out``, verify, then delete them.

    None when there is nothing to archive (everything up to ``through`` already is)."""
    if not 0 < len(tenant_id.encode()) <= SHORT_TEXT:
        raise ArchiveError("tenant must be 1 to 64 bytes")
    if batch < 1:
        raise ArchiveError("batch must be at least 1")
    newest, archived = await _counter(db, tenant_id)
    last = min(through, newest)
    first = archived + 1
    if last < first:
        return None
    writer = await asyncio.to_thread(_ArchiveWriter.open, out, tenant_id, first, last)
    try:
        async for rows in read_range(db, tenant_id, first, last):
            # Encoding and compressing off the event loop: a server's loop pass must not stall it.
            await asyncio.to_thread(writer.write, rows)
        manifest = await asyncio.to_thread(writer.finish, now)
    finally:
        await asyncio.to_thread(writer.discard)
    deleted = await delete_through(db, tenant_id, last, now, batch=batch)
    return Archived(manifest, writer.events_path, writer.manifest_path, deleted)


class _ArchiveWriter:
    """The files of one archive, written beside their final names and renamed into place once verified."""

    def __init__(self, out: Path, tenant_id: str, first: int, last: int) -> None:
        self.tenant_id, self.first, self.last = tenant_id, first, last
        self.events_path, self.manifest_path = _names(out, tenant_id, first, last)
        # Unique: two processes archiving the same range at once must not write into one file.
        self.partial = self.events_path.with_name(f".{self.events_path.name}.{uuid.uuid4().hex}.partial")
        self.digest = hashlib.sha256()
        self.count = 0
        self.sink: gzip.GzipFile | None = None

    @classmethod
    def open(cls, out: Path, tenant_id: str, first: int, last: int) -> _ArchiveWriter:
        out.mkdir(parents=True, exist_ok=True)
        writer = cls(out, tenant_id, first, last)
        if writer.events_path.exists() or writer.manifest_path.exists():
            raise ArchiveError(f"{writer.events_path} exists; archives are never overwritten")
        writer.sink = gzip.open(writer.partial, "wb")  # noqa: SIM115 (closed by finish or discard)
        return writer

    def write(self, rows: list[Any]) -> None:
        assert self.sink is not None
        for row in rows:
            if row.seq != self.first + self.count:
                raise ArchiveError(f"the log has no seq {self.first + self.count} (found {row.seq})")
            line = (event_line(row) + "\n").encode()
            self.digest.update(line)
            self.sink.write(line)
            self.count += 1

    def finish(self, now: datetime) -> Manifest:
        assert self.sink is not None
        self.sink.close()
        if self.count != self.last - self.first + 1:
            raise ArchiveError(f"the log holds {self.count} of the events {self.first}..{self.last}")
        manifest = Manifest(
            self.tenant_id,
            self.first,
            self.last,
            self.count,
            self.digest.hexdigest(),
            now.astimezone(UTC).isoformat(),
        )
        verify(self.partial, manifest)
        _fsync(self.partial)
        os.replace(self.partial, self.events_path)
        manifest_partial = self.partial.with_suffix(".manifest")
        manifest_partial.write_text(json.dumps(manifest.as_json(), indent=2) + "\n")
        _fsync(manifest_partial)
        os.replace(manifest_partial, self.manifest_path)
        return manifest

    def discard(self) -> None:
        if self.sink is not None:
            self.sink.close()
        self.partial.unlink(missing_ok=True)


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


async def delete_through(db: Database, tenant_id: str, last: int, now: datetime, *, batch: int) -> int:
    """Delete the tenant's events up to ``last`` in batches of consecutive seqs, one transaction each;
    each also moves ``archived_through`` and settles the webhook endpoints and deliveries it overtook."""
    _, archived = await _counter(db, tenant_id)
    deleted = 0
    start = archived + 1
    paced = Paced(batch)
    while start <= last:
        async with paced.batch() as size, db.transaction() as session:
            end = min(start + size - 1, last)
            gone = await session.execute(
                delete(Event).where(Event.tenant_id == tenant_id, Event.seq >= start, Event.seq <= end)
            )
            deleted += int(cast(Any, gone).rowcount or 0)
            await session.execute(
                update(TenantCounter)
                .where(TenantCounter.tenant_id == tenant_id, TenantCounter.archived_through < end)
                .values(archived_through=end)
            )
            # An endpoint whose cursor has not reached the deleted events never will get them: paused
            # with the reason, so it does not go on as if it had (an admin resumes it past the hole).
            await session.execute(
                update(WebhookEndpoint)
                .where(
                    WebhookEndpoint.tenant_id == tenant_id,
                    WebhookEndpoint.enabled.is_(True),
                    WebhookEndpoint.cursor_seq < end,
                )
                .values(enabled=False, paused_reason=HISTORY_TRUNCATED, updated_at=now)
            )
            # Retries of deleted events cannot be sent any more.
            await session.execute(
                update(WebhookDelivery)
                .where(
                    WebhookDelivery.tenant_id == tenant_id,
                    WebhookDelivery.status == "pending",
                    WebhookDelivery.seq <= end,
                )
                .values(
                    status="failed",
                    next_attempt_at=None,
                    last_error=f"{HISTORY_TRUNCATED}: the event was archived",
                    updated_at=now,
                )
            )
        start = end + 1
    return deleted


def read_manifest(path: Path) -> tuple[Manifest, Path]:
    """An archive's manifest and its events file, from the path of either."""
    name = path.name
    if name.endswith(".jsonl.gz"):
        path = path.with_name(name[: -len(".jsonl.gz")] + ".json")
    try:
        manifest = Manifest.parse(json.loads(path.read_text()))
    except (OSError, ValueError) as exc:
        raise ArchiveError(f"cannot read the manifest {path}: {exc}") from None
    return manifest, path.with_name(path.name[: -len(".json")] + ".jsonl.gz")


def _records(events_path: Path) -> Iterator[list[dict[str, Any]]]:
    page: list[dict[str, Any]] = []
    with gzip.open(events_path, "rb") as lines:
        for line in lines:
            page.append(json.loads(line))
            if len(page) == READ_PAGE:
                yield page
                page = []
    if page:
        yield page


async def restore(db: Database, path: Path) -> tuple[Manifest, int]:
    """Load an archive back under its own seqs; how many events were missing and are back.

    Idempotent: events already present are left as they are. Only an archive that reaches the retained
    log (or a tenant with no log here) can be restored, so the log never has a hole below its newest seq;
    restore a run of archives newest first."""
    manifest, events_path = read_manifest(path)
    verify(events_path, manifest)
    tenant = manifest.tenant
    newest, archived = await _counter(db, tenant)
    known = newest > 0 or await _has_counter(db, tenant)
    if known and manifest.last_seq > newest:
        raise ArchiveError(
            f"the archive reaches seq {manifest.last_seq}, past tenant {tenant}'s newest ({newest}): "
            "it belongs to another database"
        )
    if known and manifest.last_seq < archived:
        raise ArchiveError(
            f"the archive ends at seq {manifest.last_seq} but the log resumes at {archived + 1}: restore "
            f"the archive holding {manifest.last_seq + 1}..{archived} first"
        )
    inserted = 0
    insert_new = _insert_ignoring_present(db.dialect)
    for page in _records(events_path):
        async with db.transaction() as session:
            if not known:
                await session.execute(
                    insert(TenantCounter).values(
                        tenant_id=tenant, last_seq=manifest.last_seq, archived_through=manifest.first_seq - 1
                    )
                )
                known = True
            # Counted, not taken from the rowcount: asyncpg's executemany reports none.
            present = await session.scalar(
                select(func.count()).where(
                    Event.tenant_id == tenant, Event.seq >= page[0]["seq"], Event.seq <= page[-1]["seq"]
                )
            )
            await session.execute(insert_new, [_row_of(tenant, r) for r in page])
            inserted += len(page) - int(present or 0)
    async with db.transaction() as session:
        await session.execute(
            update(TenantCounter)
            .where(
                and_(
                    TenantCounter.tenant_id == tenant,
                    TenantCounter.archived_through > manifest.first_seq - 1,
                )
            )
            .values(archived_through=manifest.first_seq - 1)
        )
    return manifest, inserted


async def _has_counter(db: Database, tenant: str) -> bool:
    async with db.read_connection() as conn:
        found = await conn.scalar(select(func.count()).where(TenantCounter.tenant_id == tenant))
    return bool(found)


def _insert_ignoring_present(dialect: str) -> Any:
    make = pg_insert if dialect == "postgresql" else sqlite_insert
    return make(EVENTS).on_conflict_do_nothing(index_elements=["tenant_id", "seq"])
