"""Appending to the event log inside a transaction, with ``seq`` allocated from the tenant's counter."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import BigInteger, String, Table, bindparam, column, insert, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from ..db.driver import Prepared, run_sync
from ..db.driver import connection as driver_connection
from ..db.models import Event, TenantCounter
from ..db.types import JSONType, UTCDateTime

EVENTS = cast(Table, Event.__table__)


@dataclass
class PendingEvent:
    entity_type: str
    entity_id: str
    root_type: str
    root_id: str
    kind: str
    from_state: str | None
    to_state: str | None
    data: dict[str, Any]


@dataclass
class EventBuffer:
    tenant_id: str
    actor: str
    now: datetime
    events: list[PendingEvent] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)

    def record(
        self,
        kind: str,
        *,
        entity_type: str,
        entity_id: str,
        root_type: str,
        root_id: str,
        from_state: str | None = None,
        to_state: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        self.events.append(
            PendingEvent(entity_type, entity_id, root_type, root_id, kind, from_state, to_state, data or {})
        )


def _allocate_seqs(make_insert: Any) -> Prepared:
    """``n`` more seqs for a tenant: its counter row is created or advanced, and locked until commit."""
    stmt = make_insert(TenantCounter).values(
        tenant_id=bindparam("tenant"), last_seq=bindparam("n"), archived_through=0
    )
    return Prepared(
        stmt.on_conflict_do_update(
            index_elements=[TenantCounter.tenant_id],
            set_={"last_seq": TenantCounter.last_seq + stmt.excluded.last_seq},
        ).returning(TenantCounter.last_seq)
    )


# Every column but the key the database numbers: what each event row gives.
INSERTED_COLUMNS = tuple(c.name for c in EVENTS.columns if c.autoincrement is not True)
# Built once, run on the driver (db/driver.py): every transaction that changes anything runs both.
_ALLOCATE_SEQS = {"postgresql": _allocate_seqs(pg_insert), "sqlite": _allocate_seqs(sqlite_insert)}
_INSERT_EVENTS = Prepared(insert(EVENTS), INSERTED_COLUMNS, many=True)

# The columns each event gives; the rest are the transaction's (tenant, actor, time) or allocated (seq).
_PER_EVENT = ("entity_type", "entity_id", "root_type", "root_id", "kind", "from_state", "to_state", "data")
# PostgreSQL: the counter's advance and the event rows in one statement, where the two above take a
# round trip each. The upsert in the CTE runs once and locks the counter row to commit, as above; the
# rows come from one array per column, numbered by ``WITH ORDINALITY`` in the order given. Each
# parameter is typed: asyncpg's dialect casts it so in the SQL (``$5::VARCHAR[]``), which ``unnest``
# needs to know its arrays' types, and converts the values as the Core path would (JSON, timestamps).
_WRITE_EVENTS_POSTGRES = Prepared(
    text(
        f"""
WITH counter AS (
    INSERT INTO tenant_counters (tenant_id, last_seq, archived_through) VALUES (:tenant, :n, 0)
    ON CONFLICT (tenant_id) DO UPDATE SET last_seq = tenant_counters.last_seq + excluded.last_seq
    RETURNING last_seq
)
INSERT INTO events (tenant_id, seq, {", ".join(_PER_EVENT)}, actor, created_at)
SELECT :tenant, counter.last_seq - :n + e.ord, {", ".join(f"e.{name}" for name in _PER_EVENT)}, :actor,
    :created_at
FROM counter, unnest({", ".join(f":{name}" for name in _PER_EVENT)})
    WITH ORDINALITY AS e({", ".join(_PER_EVENT)}, ord)
RETURNING seq
""".strip()
    )
    .bindparams(
        bindparam("tenant", type_=String),
        bindparam("n", type_=BigInteger),
        bindparam("actor", type_=String),
        bindparam("created_at", type_=UTCDateTime),
        *(bindparam(name, type_=ARRAY(JSONType if name == "data" else String)) for name in _PER_EVENT),
    )
    .columns(column("seq", BigInteger))
)


async def write_events(session: AsyncSession, buffer: EventBuffer) -> None:
    """Insert the buffered events with consecutive ``seq`` values.

    Called last in the transaction: the counter row stays locked from here to commit, so a later
    transaction of the same tenant gets higher numbers and commits after this one.
    """
    if buffer.events:
        await run_sync(session, _write_events, buffer)


def _write_events(session: Session, buffer: EventBuffer) -> None:
    # The session's changes go first; then both statements run on its connection as Core, not through
    # the ORM (whose bulk-insert path cost more than SQLite took to run them). One call into the
    # session's greenlet for all three where one is needed (``driver.run_sync``).
    n = len(buffer.events)
    session.flush()
    connection = driver_connection(session)
    if connection.dialect.name == "postgresql":
        _write_events_postgres(connection, buffer)
        return
    upsert = _ALLOCATE_SEQS[connection.dialect.name]
    ((last,),) = upsert.execute(connection, {"tenant": buffer.tenant_id, "n": n})
    first = int(last) - n + 1
    buffer.seqs = list(range(first, int(last) + 1))
    _INSERT_EVENTS.executemany(
        connection,
        [
            {
                "tenant_id": buffer.tenant_id,
                "seq": seq,
                "entity_type": e.entity_type,
                "entity_id": e.entity_id,
                "root_type": e.root_type,
                "root_id": e.root_id,
                "kind": e.kind,
                "from_state": e.from_state,
                "to_state": e.to_state,
                "actor": buffer.actor,
                "data": e.data,
                "created_at": buffer.now,
            }
            for seq, e in zip(buffer.seqs, buffer.events, strict=True)
        ],
    )


def _write_events_postgres(connection: Connection, buffer: EventBuffer) -> None:
    events = buffer.events
    rows = _WRITE_EVENTS_POSTGRES.execute(
        connection,
        {
            "tenant": buffer.tenant_id,
            "n": len(events),
            "actor": buffer.actor,
            "created_at": buffer.now,
            **{name: [getattr(e, name) for e in events] for name in _PER_EVENT},
        },
    )
    buffer.seqs = sorted(int(seq) for (seq,) in rows)
