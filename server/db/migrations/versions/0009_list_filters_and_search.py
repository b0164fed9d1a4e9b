"""list sorting, text search and history indexes

Revision ID: 0009
Revises: 0007
Create Date: 2026-11-24 20:40:00

The plan, mission and workflow lists sort by last change (with or without a
state filter) from an index; the event log is read by object and by kind from an index. Text search:
on SQLite an FTS5 table per list with the trigram tokenizer, over the list table's own rows (external
content: it stores only the index), kept in step by triggers; on PostgreSQL ``pg_trgm`` GIN indexes,
which serve ILIKE '%text%'. Both find a case-insensitive substring of three characters or more.
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0007"
branch_labels = None
depends_on = None

INDEXES = [
    ("research_plans", "ix_research_plans_tenant_updated", ["tenant_id", "updated_at", "id"]),
    (
        "research_plans",
        "ix_research_plans_tenant_status_updated",
        ["tenant_id", "status", "updated_at", "id"],
    ),
    ("missions", "ix_missions_tenant_updated", ["tenant_id", "updated_at", "id"]),
    ("missions", "ix_missions_tenant_status_updated", ["tenant_id", "status", "updated_at", "id"]),
    ("workflows", "ix_workflows_tenant_updated", ["tenant_id", "updated_at", "id"]),
    ("workflows", "ix_workflows_tenant_status_updated", ["tenant_id", "status", "updated_at", "id"]),
    ("events", "ix_events_entity", ["tenant_id", "entity_id", "seq"]),
    ("events", "ix_events_kind", ["tenant_id", "kind", "seq"]),
]
# The searchable text of each list: (table, its FTS5 table, columns).
SEARCHED = [
    ("research_plans", "research_plans_fts", ["title", "research_question"]),
    ("missions", "missions_fts", ["title"]),
    ("workflows", "workflows_fts", ["name"]),
]


def _sqlite_search(table: str, fts: str, columns: list[str]) -> list[str]:
    listed = ", ".join(columns)
    new = ", ".join(f"new.{c}" for c in columns)
    old = ", ".join(f"old.{c}" for c in columns)
    delete = f"INSERT INTO {fts}({fts}, rowid, {listed}) VALUES ('delete', old.rowid, {old});"
    insert = f"INSERT INTO {fts}(rowid, {listed}) VALUES (new.rowid, {new});"
    return [
        f"CREATE VIRTUAL TABLE {fts} USING fts5({listed}, content='{table}', content_rowid='rowid', "
        "tokenize='trigram')",
        f"INSERT INTO {fts}({fts}) VALUES ('rebuild')",
        f"CREATE TRIGGER {fts}_insert AFTER INSERT ON {table} BEGIN {insert} END",
        f"CREATE TRIGGER {fts}_delete AFTER DELETE ON {table} BEGIN {delete} END",
        f"CREATE TRIGGER {fts}_update AFTER UPDATE OF {listed} ON {table} BEGIN {delete} {insert} END",
    ]


def upgrade() -> None:
    for table, name, columns in INDEXES:
        op.create_index(name, table, columns, unique=False)
    if op.get_bind().dialect.name == "sqlite":
        for table, fts, columns in SEARCHED:
            for statement in _sqlite_search(table, fts, columns):
                op.execute(statement)
    else:
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        for table, _, columns in SEARCHED:
            for column in columns:
                op.execute(
                    f"CREATE INDEX ix_{table}_{column}_trgm ON {table} USING gin ({column} gin_trgm_ops)"
                )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for _, fts, _ in reversed(SEARCHED):
            for suffix in ("update", "delete", "insert"):
                op.execute(f"DROP TRIGGER {fts}_{suffix}")
            op.execute(f"DROP TABLE {fts}")
    else:
        for table, _, columns in reversed(SEARCHED):
            for column in columns:
                op.execute(f"DROP INDEX ix_{table}_{column}_trgm")
    for table, name, _ in reversed(INDEXES):
        op.drop_index(name, table_name=table)
