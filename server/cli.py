"""The ``flightdeck`` command: serve, mcp, migrate, backup, export-schema, export-machines, keys."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from sqlalchemy.engine import make_url

from .auth import DevModeRefused, Role, count_active_keys, create_key, decide_dev_mode, list_keys, revoke_key
from .clock import SystemClock
from .config import ConfigError, Settings, load_settings
from .db.engine import Database
from .db.migrate import upgrade
from .db.models import McpToolCallLog, OperationLog
from .errors import ServiceError
from .hosts import is_loopback
from .logs import lean_records, logging_config

T = TypeVar("T")

app = typer.Typer(help="Flightdeck: a live state engine for AI-agent work.", no_args_is_help=True)
keys_app = typer.Typer(help="Manage API keys (each maps to a tenant and a role).", no_args_is_help=True)
app.add_typer(keys_app, name="keys")
ops_app = typer.Typer(
    help="Read and prune the operation log (every GraphQL operation: name, type, actor, duration, error).",
    no_args_is_help=True,
)
app.add_typer(ops_app, name="ops")
mcp_log_app = typer.Typer(
    help="Read and prune the MCP tool-call log (kept by the operation log's retention settings).",
    no_args_is_help=True,
)
app.add_typer(mcp_log_app, name="mcp-log")
events_app = typer.Typer(
    help="Archive the event log's oldest events to files and delete them, restore archives, export ranges.",
    no_args_is_help=True,
)
app.add_typer(events_app, name="events")

_config_file: Path | None = None


@app.callback()
def main(
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            envvar="FLIGHTDECK_CONFIG",
            help="A TOML file of settings (docs/reference/settings.md); the environment overrides it.",
        ),
    ] = None,
) -> None:
    global _config_file
    _config_file = config


def _settings(**flags: object) -> Settings:
    """The settings for this command: flags over the environment over the configuration file over
    defaults; a bad one stops the command with one line naming it, and exit status 2."""
    try:
        return load_settings(_config_file, **flags)
    except ConfigError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None


def _migrate(settings: Settings) -> None:
    """Bring the database up to date, or stop with one line saying why it cannot be reached (status 2)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    try:
        upgrade(settings.database_url)
    except (OSError, SQLAlchemyError) as exc:
        where = make_url(settings.database_url).render_as_string(hide_password=True)
        cause = getattr(exc, "orig", None) or exc
        reason = str(cause).strip().splitlines()[0][:300] if str(cause).strip() else ""
        typer.echo(
            f"cannot use the database {where} (database_url): {type(cause).__name__}: {reason}", err=True
        )
        raise typer.Exit(2) from None


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default: FLIGHTDECK_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default: FLIGHTDECK_PORT).")] = None,
) -> None:
    """Apply migrations and serve GraphQL, GraphiQL and the dashboard."""
    # The app decides dev mode from the address it is actually bound to.
    settings = _settings(host=host, port=port)

    import uvicorn

    from .app import create_app

    _migrate(settings)
    try:
        # The app decides again at start-up (it is the decision that counts); this only turns a
        # refusal into a clear message and exit status instead of a failed start-up.
        asyncio.run(_check_dev_mode(settings))
    except DevModeRefused as exc:
        typer.echo(f"refusing to bind {settings.host}: {exc}", err=True)
        raise typer.Exit(2) from None
    prepare_process(settings)
    uvicorn.run(
        create_app(settings, migrate=False, freeze_gc=settings.gc_freeze), **uvicorn_options(settings)
    )


def prepare_process(settings: Settings) -> None:
    """What ``serve`` sets for the whole process before the app starts: the collector's threshold and
    its metrics, the lean log records (the in-process benchmark sets the same)."""
    from .metrics import watch_gc

    gc.set_threshold(settings.gc_threshold, *gc.get_threshold()[1:])
    watch_gc()
    lean_records()


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """How ``serve`` runs uvicorn (the benchmarks run their reference apps with the same)."""
    return {
        "host": settings.host,
        "port": settings.port,
        "log_level": settings.log_level,
        "log_config": logging_config(settings.log_format, settings.log_level),
        "access_log": settings.access_log,
        "ws": "websockets-sansio",
        # Compression state costs ~50 KB per WebSocket; our messages are small JSON.
        "ws_per_message_deflate": False,
        # SIGTERM: stop accepting, close WebSockets with 1012 (clients reconnect elsewhere), let
        # in-flight requests finish for this long, then stop the loops and flush (app.py's lifespan).
        "timeout_graceful_shutdown": settings.shutdown_grace_seconds,
    }


async def _check_dev_mode(settings: Settings) -> None:
    db = Database(settings.database_url)
    try:
        active = await count_active_keys(db)
    finally:
        await db.dispose()
    decide_dev_mode(
        settings.dev_mode, active, is_loopback(settings.host), settings.allow_non_loopback_dev_mode
    )


@app.command()
def mcp(
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            envvar="FLIGHTDECK_API_KEY",
            help="The API key the agent acts with (its tenant and role). Without one: the dev admin, "
            "only while no key is active.",
        ),
    ] = None,
    toolsets: Annotated[
        str | None,
        typer.Option(
            "--toolsets",
            envvar="FLIGHTDECK_MCP_TOOLSETS",
            help="Only these sets of tools, comma-separated: plans, workflows, missions, admin (default: "
            "every set; always only the tools the key's role may call).",
        ),
    ] = None,
) -> None:
    """Serve the MCP tools over stdio on the configured database (for `claude mcp add`, Claude Desktop)."""
    from .mcp.stdio import StdioRefused, serve_stdio
    from .mcp.toolsets import UnknownToolset, parse_toolsets

    try:
        selection = parse_toolsets(toolsets)
    except UnknownToolset as exc:
        typer.echo(f"flightdeck mcp: {exc}", err=True)
        raise typer.Exit(2) from None
    settings = _settings()
    if missing := missing_sqlite_file(settings.database_url):
        # An MCP host starts this command in the user's project: a new empty database there would hold
        # none of the keys or plans, and be left behind.
        typer.echo(
            f"flightdeck mcp: no database at {missing}: set database_url (FLIGHTDECK_DATABASE_URL, "
            "--config, or ~/.config/flightdeck/config.toml) to an existing database, with an absolute "
            "path, or create this one with `flightdeck migrate`",
            err=True,
        )
        raise typer.Exit(2)
    _migrate(settings)
    try:
        asyncio.run(serve_stdio(settings, key, selection))
    except (StdioRefused, DevModeRefused) as exc:
        typer.echo(f"flightdeck mcp: {exc}", err=True)
        raise typer.Exit(2) from None


def missing_sqlite_file(database_url: str) -> Path | None:
    """The absolute path of a SQLite database file that does not exist (None: it exists, or not SQLite)."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    path = Path(url.database).absolute()
    return None if path.exists() else path


@app.command("deliver-webhooks")
def deliver_webhooks() -> None:
    """Deliver webhooks only, in a process of its own (run `serve` with FLIGHTDECK_WEBHOOKS=false then):
    it takes the endpoints' leases like a serve process would, and hears commits through the broadcast
    URL (or finds them every FLIGHTDECK_WEBHOOK_POLL_SECONDS)."""
    from .loops.webhooks import run_dispatcher

    settings = _settings()
    _migrate(settings)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_dispatcher(settings))


@app.command()
def migrate() -> None:
    """Bring the database schema up to date."""
    settings = _settings()
    _migrate(settings)
    typer.echo("database is up to date")


@app.command()
def backup(
    path: Annotated[Path, typer.Argument(help="Where to write the copy; must not exist yet.")],
) -> None:
    """Copy the SQLite database to PATH, safely while the server runs (PostgreSQL: pg_dump)."""
    from .backup import BackupError, backup_sqlite

    try:
        done = backup_sqlite(_settings().database_url, path)
    except BackupError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    typer.echo(f"backed up to {done.path}: {done.bytes} bytes, {done.events} events, schema {done.revision}")


@app.command("export-schema")
def export_schema() -> None:
    """Print the GraphQL schema (SDL)."""
    from .api.schema import build_schema

    typer.echo(build_schema(_settings()).as_str().rstrip("\n"))


@app.command("export-machines")
def export_machines() -> None:
    """Print every state machine as Markdown (``docs/state-machines.md``)."""
    from .machines.docs import render_all

    typer.echo(render_all().rstrip("\n"))


@keys_app.command("create")
def keys_create(
    tenant: Annotated[str, typer.Option(help="Tenant the key acts for.")],
    role: Annotated[Role, typer.Option(help="agent, reviewer, viewer or admin.")],
    name: Annotated[str, typer.Option(help="A label to recognise the key by.")] = "",
    agent: Annotated[
        list[str] | None,
        typer.Option(help="An agent name the key claims and reports work as (repeatable); none: any."),
    ] = None,
) -> None:
    """Create a key. It is printed once; only its hash is stored."""
    settings = _settings()
    _migrate(settings)

    async def run() -> tuple[str, str]:
        db = Database(settings.database_url)
        try:
            return await create_key(db, tenant, role, name, SystemClock().now(), agent)
        finally:
            await db.dispose()

    key_id, key = asyncio.run(run())
    typer.echo(f"key id: {key_id}", err=True)
    typer.echo(key)


@keys_app.command("list")
def keys_list() -> None:
    """List keys (never the keys themselves)."""
    settings = _settings()
    _migrate(settings)

    async def run() -> None:
        db = Database(settings.database_url)
        try:
            for row in await list_keys(db):
                state = "revoked" if row.revoked_at else "active"
                acts_as = f"  agents={','.join(row.agents)}" if row.agents else ""
                typer.echo(f"{row.id}  {row.tenant_id}  {row.role}  {state}  {row.name}{acts_as}")
        finally:
            await db.dispose()

    asyncio.run(run())


@keys_app.command("revoke")
def keys_revoke(key_id: str) -> None:
    """Revoke a key by its id."""
    settings = _settings()
    _migrate(settings)

    async def run() -> bool:
        db = Database(settings.database_url)
        try:
            return await revoke_key(db, key_id, SystemClock().now())
        finally:
            await db.dispose()

    if not asyncio.run(run()):
        typer.echo(f"no active key {key_id}", err=True)
        raise typer.Exit(1)
    typer.echo(f"revoked {key_id}")


@ops_app.command("list")
def ops_list(
    tenant: Annotated[str, typer.Option(help="Whose operations.")] = "default",
    name: Annotated[str | None, typer.Option(help="Only this operation name.")] = None,
    type_: Annotated[str | None, typer.Option("--type", help="query, mutation or subscription.")] = None,
    actor: Annotated[str | None, typer.Option(help="Only this actor (dev, key:NAME).")] = None,
    errors: Annotated[bool, typer.Option("--errors", help="Only operations that failed.")] = False,
    since: Annotated[
        datetime | None, typer.Option(help="At or after this time (ISO 8601, UTC if no zone).")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="At most this many, newest first.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object a line.")] = False,
) -> None:
    """List recorded operations, newest first."""
    from .services.operation_log import OperationFilter, list_operations

    settings = _settings()
    _migrate(settings)
    where = OperationFilter(
        operation_name=name,
        operation_type=type_,
        actor=actor,
        errors_only=errors,
        since=since.replace(tzinfo=since.tzinfo or UTC) if since else None,
    )

    async def run() -> list[OperationLog]:
        db = Database(settings.database_url)
        try:
            async with db.reader() as session:
                return (await list_operations(session, tenant, where, limit, None)).items
        finally:
            await db.dispose()

    try:
        rows = asyncio.run(run())
    except ServiceError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    for row in rows:
        if as_json:
            typer.echo(
                json.dumps(
                    {
                        "at": row.created_at.isoformat(),
                        "name": row.operation_name,
                        "type": row.operation_type,
                        "actor": row.actor,
                        "durationMs": round(row.duration_ms, 3),
                        "error": row.error,
                    }
                )
            )
        else:
            outcome = "error" if row.error else "ok"
            typer.echo(
                f"{row.created_at.isoformat(timespec='milliseconds')}  {row.operation_type:<12} "
                f"{row.operation_name:<32} {row.actor:<20} {row.duration_ms:9.1f} ms  {outcome}"
            )


@ops_app.command("prune")
def ops_prune() -> None:
    """Apply the retention settings now (the server also does, every OPERATION_LOG_PRUNE_INTERVAL)."""
    _prune(OperationLog)


@mcp_log_app.command("prune")
def mcp_log_prune() -> None:
    """Apply the operation log's retention settings to the tool-call log now (the server also does)."""
    _prune(McpToolCallLog)


@mcp_log_app.command("list")
def mcp_log_list(
    tenant: Annotated[str, typer.Option(help="Whose tool calls.")] = "default",
    tool: Annotated[str | None, typer.Option(help="Only this tool.")] = None,
    actor: Annotated[str | None, typer.Option(help="Only this actor (dev, key:NAME).")] = None,
    session: Annotated[str | None, typer.Option(help="Only this session.")] = None,
    errors: Annotated[bool, typer.Option("--errors", help="Only refused calls.")] = False,
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="At most this many, newest first.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object a line.")] = False,
) -> None:
    """List recorded MCP tool calls, newest first."""
    from .services.operation_log import ToolCallFilter, list_tool_calls

    settings = _settings()
    _migrate(settings)
    where = ToolCallFilter(tool=tool, actor=actor, session_id=session, errors_only=errors)

    async def run() -> list[McpToolCallLog]:
        db = Database(settings.database_url)
        try:
            async with db.reader() as s:
                return (await list_tool_calls(s, tenant, where, limit, None)).items
        finally:
            await db.dispose()

    for row in asyncio.run(run()):
        if as_json:
            record = {
                "at": row.created_at.isoformat(),
                "tool": row.tool,
                "actor": row.actor,
                "sessionId": row.session_id,
                "transport": row.transport,
                "durationMs": round(row.duration_ms, 3),
                "error": row.error,
                "errorCode": row.error_code,
                "argumentBytes": row.argument_bytes,
                "resultBytes": row.result_bytes,
            }
            typer.echo(json.dumps(record))
        else:
            typer.echo(
                f"{row.created_at.isoformat(timespec='milliseconds')}  {row.transport:<5} {row.tool:<30} "
                f"{row.actor:<20} {row.duration_ms:9.1f} ms  {row.error_code or 'ok':<18} "
                f"in {row.argument_bytes} B, out {row.result_bytes} B"
            )


def _prune(model: type[OperationLog] | type[McpToolCallLog]) -> None:
    from .services.operation_log import prune_operation_log

    settings = _settings()
    _migrate(settings)

    async def run() -> tuple[int, int]:
        db = Database(settings.database_url)
        try:
            pruned = await prune_operation_log(
                db,
                SystemClock().now(),
                timedelta(days=settings.operation_log_max_age_days),
                settings.operation_log_max_rows,
                model,
            )
            return pruned.by_age, pruned.by_size
        finally:
            await db.dispose()

    by_age, by_size = asyncio.run(run())
    typer.echo(f"deleted {by_age} records past the age limit and {by_size} past the size limit")


def _with_db(settings: Settings, work: Callable[[Database], Awaitable[T]]) -> T:
    """Run ``work`` on the configured database (migrated first); disposed of afterwards."""
    upgrade(settings.database_url)

    async def run() -> T:
        db = Database(settings.database_url)
        try:
            return await work(db)
        finally:
            await db.dispose()

    return asyncio.run(run())


def _cut_off(db: Database, tenant: str, before: str) -> Awaitable[int]:
    """The last seq to archive: ``before`` is a seq (archive every event below it) or an ISO time."""
    from .services.retention.archive import ArchiveError, cutoff_for_time

    if before.isdigit():
        if len(before) > 18 or int(before) < 1:
            raise ArchiveError("--before must be a seq from 1 or an ISO 8601 time")

        async def below() -> int:
            return int(before) - 1

        return below()
    try:
        when = datetime.fromisoformat(before)
    except ValueError:
        raise ArchiveError(f"--before {before[:40]!r} is neither a seq nor an ISO 8601 time") from None
    return cutoff_for_time(db, tenant, when.replace(tzinfo=when.tzinfo or UTC))


@events_app.command("archive")
def events_archive(
    before: Annotated[
        str, typer.Option(help="Archive the events below this seq, or created before this time (ISO 8601).")
    ],
    out: Annotated[Path, typer.Option(help="The directory the archive files go to (created if missing).")],
    tenant: Annotated[str, typer.Option(help="Whose events.")] = "default",
    batch: Annotated[
        int,
        typer.Option(
            min=1,
            max=100_000,
            help="At most this many events deleted per transaction (fewer when a batch would hold the "
            "write lock longer than ~5 ms).",
        ),
    ] = 1_000,
) -> None:
    """Write the tenant's events up to a cut-off to OUT (gzip JSON Lines and a manifest), read them back,
    then delete them from the log in short transactions. Cursors below the cut-off get HISTORY_TRUNCATED."""
    from .services.retention.archive import ArchiveError, archive
    from .services.retention.space import give_back_space

    # A maintenance job beside a serving process: reading, compressing and checking the archive takes
    # a core for seconds to minutes, and the server's requests should get the CPU first.
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)

    async def work(db: Database) -> str:
        through = await _cut_off(db, tenant, before)
        done = await archive(db, tenant, through, out, SystemClock().now(), batch=batch)
        if done is None:
            return "nothing to archive: every event up to the cut-off already is"
        freed = await give_back_space(db)
        m = done.manifest
        return (
            f"archived seqs {m.first_seq}..{m.last_seq} ({m.count} events) to {done.events_path}; deleted "
            f"{done.deleted} rows; {freed} bytes given back to the file system"
        )

    try:
        typer.echo(_with_db(_settings(), work))
    except ArchiveError as exc:
        typer.echo(f"archive refused: {exc}", err=True)
        raise typer.Exit(1) from None


@events_app.command("restore")
def events_restore(
    archives: Annotated[list[Path], typer.Argument(help="Manifests (.json) or event files (.jsonl.gz).")],
) -> None:
    """Load archives back under their own seqs (newest first when there are several); events already in
    the log are left alone, so restoring twice changes nothing."""
    from .services.retention.archive import ArchiveError, read_manifest, restore

    async def work(db: Database) -> list[str]:
        lines = []
        # Newest first: each restore must reach the retained log.
        for path in sorted(archives, key=lambda p: -read_manifest(p)[0].first_seq):
            manifest, inserted = await restore(db, path)
            lines.append(
                f"restored {inserted} of {manifest.count} events ({manifest.first_seq}..{manifest.last_seq}) "
                f"of tenant {manifest.tenant}"
            )
        return lines

    try:
        for line in _with_db(_settings(), work):
            typer.echo(line)
    except ArchiveError as exc:
        typer.echo(f"restore refused: {exc}", err=True)
        raise typer.Exit(1) from None


@events_app.command("export")
def events_export(
    tenant: Annotated[str, typer.Option(help="Whose events.")] = "default",
    from_seq: Annotated[int, typer.Option("--from", min=1, help="The first seq.")] = 1,
    to_seq: Annotated[
        int | None, typer.Option("--to", min=1, help="The last seq; omitted: the newest.")
    ] = None,
) -> None:
    """Stream a range of the log to stdout as JSON Lines (the archive's format), for analytics."""
    from .services.retention.archive import ArchiveError, export_lines
    from .services.retention.truncation import HistoryTruncated

    async def work(db: Database) -> None:
        async for line in export_lines(db, tenant, from_seq, to_seq):
            typer.echo(line)

    try:
        _with_db(_settings(), work)
    except HistoryTruncated as exc:
        typer.echo(f"HISTORY_TRUNCATED: {exc}", err=True)
        raise typer.Exit(1) from None
    except ArchiveError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None


@ops_app.command("size")
def ops_size(
    as_json: Annotated[bool, typer.Option("--json", help="One JSON document.")] = False,
) -> None:
    """Rows and bytes per table (with its indexes), and the database's total size."""
    from .services.retention.space import size_report

    report = _with_db(_settings(), size_report)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "totalBytes": report.total_bytes,
                    "freeBytes": report.free_bytes,
                    "method": report.method,
                    "tables": [{"name": t.name, "rows": t.rows, "bytes": t.bytes} for t in report.tables],
                }
            )
        )
        return
    for t in report.tables:
        typer.echo(f"{t.name:<32} {t.rows:>12} rows {t.bytes:>14} bytes")
    typer.echo(f"{'total':<32} {'':>17} {report.total_bytes:>14} bytes ({report.free_bytes} free)")
    if report.method == "none":
        typer.echo("(this SQLite has no dbstat table: bytes per table are not measured)", err=True)
