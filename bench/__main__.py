"""`make bench`: start real servers, measure, print JSON and a Markdown table.

python -m bench [--only transitions,mcp,mcp_typescript,mcp_tools,latency,stall,memory,catchup,webhooks,
                        scale,workers,workflow_scale,floor]
                [--sizes 100,10000,100000,1000000] [--floor-plans 100000]
                [--postgres-url URL --redis-url URL]   (the scale series on PostgreSQL, 1 and 2 processes)
python -m bench soak [--minutes 8] [--rate 48] [--database-url URL] [--broadcast-url URL]   (`make soak`)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from server.db.migrate import upgrade

from . import (
    archival,
    catch_up,
    floor,
    latency,
    lists,
    mcp_tool_list,
    mcp_transitions,
    mcp_typescript,
    scale,
    soak,
    stall_scan,
    transitions,
    webhooks,
    workers,
    workflow_scale,
)

TARGETS = {
    "transitions_per_second_http": (">=", 1000.0),
    "http_to_service_ratio": (">=", 0.3),
    "latency_p99_ms": ("<=", 100.0),
    "delivered_ratio": ("==", 1.0),
    "stall_scan_ms": ("<=", 50.0),
    "memory_per_idle_subscriber_kb": ("<=", 50.0),
    "catch_up_events_per_second": (">=", 50_000.0),
    "webhook_slowdown_separate_process": ("<=", 0.05),
    "webhook_slowdown_in_process": ("<=", 0.05),
    "mcp_to_graphql_ratio": (">=", 0.7),
    "mcp_typescript_to_graphql_ratio": (">=", 0.7),
    "mcp_tools_list_kb_plans": ("<=", 25.0),
    "mcp_tools_list_kb_all": ("<=", 50.0),
    "scale_ratio_100k_to_100": (">=", 0.9),
    "scale_transitions_per_second_at_100000": (">=", 1000.0),
    "scale_server_cpu_ms_per_transition_at_100000": ("<=", 1.0),
    "scale_request_p99_ms_at_100000": ("<=", 50.0),
    "scale_list_p50_ms_at_1000000": ("<=", 10.0),
    "floor_server_cpu_ms_per_transition_at_100000": ("<=", 1.0),
    "floor_typename_over_stock_strawberry": ("<=", 1.3),
    "pg_1_scale_ratio_100k_to_100": (">=", 0.9),
    "workers_wake_steps_per_second": (">=", 300.0),
    "workers_wake_claim_ms_p99": ("<=", 50.0),
    "workflow_claim_complete_ratio_1000_to_10": ("<=", 2.0),
    "lists_duration_desc_page_p50_ms": ("<=", 10.0),
    "lists_duration_asc_page_p50_ms": ("<=", 10.0),
}
DEFAULT_SIZES = "100,10000,100000"  # 1,000,000 on request: its load alone takes minutes


def fresh_sqlite(folder: Path, name: str) -> str:
    url = f"sqlite+aiosqlite:///{folder / name}"
    upgrade(url)  # before any event loop runs: alembic runs its own
    return url


def fresh_postgres(url: str) -> str:
    """Empties the PostgreSQL database at ``url`` (its public schema) and migrates it."""
    import asyncpg

    async def reset() -> None:
        conn = await asyncpg.connect(make_url(url).set(drivername="postgresql").render_as_string(False))
        try:
            await conn.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        finally:
            await conn.close()

    asyncio.run(reset())
    upgrade(url)
    return url


def run_scale(
    folder: Path, sizes: list[int], postgres_url: str | None, redis_url: str | None
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    rows = [scale.measure(fresh_sqlite(folder, f"scale-{n}.db"), n) for n in sizes]
    results["scale_sqlite"] = rows
    results.update(scale.ratios(rows))
    for row in rows:  # the figures the issue sets targets for, at the sizes it names
        for name in (
            "transitions_per_second",
            "server_cpu_ms_per_transition",
            "request_p99_ms",
            "list_p50_ms",
        ):
            if f"scale_{name}_at_{row['plans']}" in TARGETS:
                results[f"scale_{name}_at_{row['plans']}"] = row[name]
    if postgres_url:
        # One load per size; the two-process run follows the one-process run on the same database.
        one: list[dict[str, Any]] = []
        two: list[dict[str, Any]] = []
        env = {"BROADCAST_URL": redis_url} if redis_url else {}
        for n in sizes:
            one.append(scale.measure(fresh_postgres(postgres_url), n, 1, **env))
            two.append(scale.measure(postgres_url, n, 2, load=False, **env))
        for processes, pg in ((1, one), (2, two)):
            results[f"scale_postgres_{processes}_process"] = pg
            results.update(scale.ratios(pg, f"pg_{processes}_"))
    return results


def run_floor(
    folder: Path, plans: int, postgres_url: str | None, before: str | None = None
) -> dict[str, Any]:
    """Server CPU per transition beside its floor, in interleaved rounds (bench/floor.py)."""
    sqlite = floor.measure(fresh_sqlite(folder, "floor.db"), plans, before=before)
    results: dict[str, Any] = {"floor_sqlite": sqlite}
    if postgres_url:
        results["floor_postgres"] = floor.measure(fresh_postgres(postgres_url), plans, before=before)
    for name in list(results):
        results[f"{name}_table"] = floor.table(results[name])
    results[f"floor_server_cpu_ms_per_transition_at_{plans}"] = round(
        sqlite["transition_cpu_us"]["median"] / 1000, 3
    )
    results["floor_typename_over_stock_strawberry"] = sqlite["typename_over_stock"]["median"]
    return results


def run(
    only: set[str],
    sizes: list[int] | None = None,
    postgres_url: str | None = None,
    redis_url: str | None = None,
    floor_plans: int = 100_000,
    floor_before: str | None = None,
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if "transitions" in only:
            service = asyncio.run(transitions.in_process(fresh_sqlite(folder, "service.db")))
            http = asyncio.run(transitions.over_http(fresh_sqlite(folder, "http.db")))
            results["transitions_per_second_service"] = round(service, 1)
            results["transitions_per_second_http"] = round(http, 1)
            results["http_to_service_ratio"] = round(http / service, 3)
        if "mcp" in only:
            results.update(asyncio.run(mcp_transitions.compare(fresh_sqlite(folder, "mcp.db"))))
        if "mcp_typescript" in only:
            results.update(asyncio.run(mcp_typescript.compare(fresh_sqlite(folder, "mcp_ts.db"))))
        if "mcp_tools" in only:
            results.update(mcp_tool_list.measure(fresh_sqlite(folder, "mcp_tools.db")))
        if "latency" in only:
            fanout = asyncio.run(latency.fanout_latency(fresh_sqlite(folder, "latency.db")))
            results.update({k: v for k, v in fanout.items() if k.startswith(("latency", "delivered"))})
            results["every_subscriber_in_order_once"] = fanout["every_subscriber_in_order_once"]
        if "stall" in only:
            quiet = asyncio.run(stall_scan.scan(fresh_sqlite(folder, "stall.db"), stalled=0))
            busy = asyncio.run(stall_scan.scan(fresh_sqlite(folder, "stall2.db"), stalled=100))
            results["stall_scan_ms"] = quiet["ms"]
            results["stall_scan_with_100_stalls_ms"] = busy["ms"]
            results["stall_scan_with_100_stalls_found"] = busy["stalled_found"]
        if "catchup" in only:
            results.update(asyncio.run(catch_up.catch_up(fresh_sqlite(folder, "catchup.db"))))
        if "webhooks" in only:
            urls = [fresh_sqlite(folder, f"webhooks{i}.db") for i in range(5)]
            results.update(asyncio.run(webhooks.fan_out(urls, folder)))
        if "workers" in only:
            results.update(workers.run(fresh_sqlite))
        if "workflow_scale" in only:
            results.update(workflow_scale.run(fresh_sqlite))
        if "lists" in only:
            results.update(lists.run(fresh_sqlite(folder, "lists.db")))
        if "memory" in only:
            memory = asyncio.run(latency.idle_memory(fresh_sqlite(folder, "memory.db")))
            results["memory_per_idle_subscriber_kb"] = memory["memory_per_idle_subscriber_kb"]
        if "scale" in only:
            results.update(run_scale(folder, sizes or [], postgres_url, redis_url))
        if "floor" in only:
            results.update(run_floor(folder, floor_plans, postgres_url, floor_before))
    return results


def verdict(name: str, value: float) -> str:
    if name not in TARGETS:
        return ""
    op, target = TARGETS[name]
    ok = {">=": value >= target, "<=": value <= target, "==": value == target}[op]
    return f"{op} {target:g}: {'met' if ok else 'MISSED'}"


def run_soak(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench soak")
    parser.add_argument("--minutes", type=float, default=8.0)
    parser.add_argument("--rate", type=float, default=48.0, help="mutations per second, all agents together")
    parser.add_argument("--warmup", type=float, default=60.0, help="seconds left out of the figures")
    parser.add_argument("--database-url", help="default: a new SQLite file")
    parser.add_argument("--broadcast-url", help="e.g. redis://127.0.0.1:6379/0 (default: memory://)")
    parser.add_argument(
        "--retention", action="store_true", help="archive and delete as the sizing guide says (soak.py)"
    )
    parser.add_argument(
        "--keep-seconds",
        type=float,
        default=soak.KEEP_SECONDS,
        help="with --retention: no event or operation log record older is kept",
    )
    parser.add_argument(
        "--retained",
        type=int,
        default=soak.RETAINED,
        help="with --retention: the events and operation log records kept",
    )
    args = parser.parse_args(argv)
    env = {"BROADCAST_URL": args.broadcast_url} if args.broadcast_url else {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.retention:
            env |= soak.retention_env(Path(tmp) / "archive", args.keep_seconds, args.retained)
        url = args.database_url or fresh_sqlite(Path(tmp), "soak.db")
        result = asyncio.run(soak.soak(url, args.minutes, args.rate, args.warmup, **env))
    samples = result.pop("samples")
    print("| t (s) | transitions | RSS (MB) | fds | threads | database (MB) |")
    print("|---|---|---|---|---|---|")
    for s in samples:
        print(
            f"| {s['t']} | {s['transitions']} | {s['rss_kb'] / 1024:.1f} | {s['fds']} | {s['threads']} "
            f"| {s['db_bytes'] / 1e6:.2f} |"
        )
    print()
    print(json.dumps(result, indent=2))


def run_archival(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench archival")
    parser.add_argument("--events", type=int, default=100_000, help="events each round archives")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rate", type=float, default=100.0, help="mutations per second, all agents together")
    parser.add_argument("--batch", type=int, default=1_000, help="events deleted per transaction")
    parser.add_argument("--database-url", help="PostgreSQL (emptied first!); default: a new SQLite file")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        url = fresh_postgres(args.database_url) if args.database_url else fresh_sqlite(Path(tmp), "a.db")
        result = asyncio.run(
            archival.measure(
                url,
                Path(tmp) / "archive",
                events=args.events,
                rounds=args.rounds,
                rate=args.rate,
                batch=args.batch,
            )
        )
    print(
        "| round | archive (s) | mutations without / during | p50 without / during (ms) "
        "| p99 without / during (ms) | ratio | load |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in result["rounds"]:
        print(
            f"| {r['round']} | {r['archive_seconds']} | {r['mutations_without']} / {r['mutations_during']} "
            f"| {r['p50_ms_without']} / {r['p50_ms_during']} | {r['p99_ms_without']} / {r['p99_ms_during']} "
            f"| {r['ratio']} | {r['load_average']} |"
        )
    print()
    print(json.dumps(result, indent=2))


def main() -> None:
    if sys.argv[1:2] == ["soak"]:
        run_soak(sys.argv[2:])
        return
    if sys.argv[1:2] == ["archival"]:
        run_archival(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument(
        "--only",
        default="transitions,mcp,mcp_typescript,mcp_tools,latency,stall,memory,catchup,webhooks,scale,workers,workflow_scale,lists,floor",
    )
    parser.add_argument(
        "--sizes", default=DEFAULT_SIZES, help="plans loaded for each run of the scale series"
    )
    parser.add_argument(
        "--postgres-url", help="also run the scale series on this (emptied!) PostgreSQL database"
    )
    parser.add_argument("--redis-url", help="the broadcast for the two-process PostgreSQL series")
    parser.add_argument("--floor-plans", type=int, default=100_000, help="plans loaded for --only floor")
    parser.add_argument(
        "--floor-before", help="a checkout whose server --only floor also measures in the same rounds (A/B)"
    )
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    results = run(
        set(args.only.split(",")),
        sizes,
        args.postgres_url,
        args.redis_url,
        args.floor_plans,
        args.floor_before,
    )
    tables = {k: results.pop(k) for k in list(results) if k.endswith("_table")}
    print(json.dumps(results, indent=2))
    print()
    for name, text in tables.items():
        print(f"{name.removesuffix('_table')}:\n\n{text}\n")
    series = {
        k: results.pop(k) for k in list(results) if k.startswith("scale_") and isinstance(results[k], list)
    }
    for name, rows in series.items():
        print(f"{name}:\n")
        print(scale.table(rows))
        print()
    print("| figure | value | target |")
    print("|---|---|---|")
    for name, value in results.items():
        if isinstance(value, dict):
            continue  # in the JSON and its own table above
        shown = verdict(name, float(value)) if isinstance(value, int | float) else ""
        print(f"| {name} | {value} | {shown} |")


if __name__ == "__main__":
    main()
