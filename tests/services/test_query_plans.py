"""Every statement the server issues on a hot or list path is served by an index.

A real server runs the documentation's tours (every domain's mutations, claims and timers), the lists with
their filters and pages, and each timer loop's pass; every statement it sends is captured at the driver and
explained on the same database: SQLite's query plan, and PostgreSQL's with sequential scans disabled (its
planner would otherwise prefer them on tables this small, which says nothing about a large one). A
statement fails when it reads a whole table, or when a paged statement (one with LIMIT) sorts its rows
instead of reading them in index order.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import asyncpg
import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url

from server.loops.asset_expiry import expire_assets
from server.loops.stalls import scan_stalls
from server.loops.workflow_timers import run_workflow_timers
from tests.conftest import GraphQLClient, LiveServer
from tests.test_readme_tour import run_tours

# Reads whose full scan is by design, each with its reason.
WHOLE_TABLE_OK = {
    "alembic_version": "one row",
}
# An FTS5 table read through its MATCH constraint (the index plan's "M"): a full-text index lookup.
FTS_MATCH = re.compile(r"^SCAN \w+_fts VIRTUAL TABLE INDEX \d+:M")
# A deadline-order cursor (due, opened, decision id), and the gate queue's after every decision.
DUE_CURSOR = "ZHVlfDIwMjYtMDEtMDFUMDA6MDA6MDArMDA6MDB8MjAyNi0wMS0wMVQwMDowMDowMCswMDowMHxh"
UNDECIDED_CURSOR = "dW5kZWNpZGVkfE1qQXlOaTB3TVMwd01WUXdNRG93TURvd01Dc3dNRG93TUh4aA=="
LISTS = [
    "{ researchPlans(first: 5) { totalCount edges { cursor node { id } } } }",
    "{ researchPlans(first: 5, status: [EXECUTING, COMPLETED]) { edges { node { id } } } }",
    "{ missions(first: 5) { totalCount edges { node { id } } } }",
    "{ workflows(first: 5) { totalCount edges { node { id } } } }",
    "{ reviewInbox(first: 5) { totalCount edges { node { waitingSince } } } }",
    "{ missionReviewInbox(first: 5) { missions { id } hopPlans { id } assets { id } } }",
    "{ workflowStepsAwaitingReview(first: 5) { totalCount edges { node { id } } } }",
    "{ events(after: 3, first: 5) { edges { node { seq } } } }",
    "{ operationLog(first: 5, filter: {errorsOnly: true}) { edges { node { name } } } }",
    "{ latestSeq }",
    # every list's filters and orders, and the history reads
    *(
        f"{{ {name}(first: 5{extra}) {{ totalCount edges {{ cursor }} }} }}"
        for name in ("researchPlans", "missions", "workflows")
        for extra in (
            ", orderBy: {field: UPDATED_AT}",
            ", orderBy: {field: UPDATED_AT, direction: ASC}",
            ", orderBy: {field: STATUS}",
            ", orderBy: {field: STATUS, direction: ASC}",
            ", orderBy: {field: CREATED_AT, direction: ASC}",
            ", status: [COMPLETED], orderBy: {field: UPDATED_AT}",
            ', filter: {since: "2000-01-01T00:00:00Z", until: "2100-01-01T00:00:00Z"}',
            ', filter: {since: "2000-01-01T00:00:00Z"}, orderBy: {field: UPDATED_AT}',
            ', status: [COMPLETED], filter: {since: "2000-01-01T00:00:00Z"}, orderBy: {field: UPDATED_AT}',
            ', filter: {search: "battery"}',
            ', filter: {search: "battery"}, orderBy: {field: UPDATED_AT}',
            ', status: [COMPLETED], filter: {search: "battery"}, orderBy: {field: STATUS}',
            # the duration order (a generated column's index)
            ", orderBy: {field: DURATION}",
            ", orderBy: {field: DURATION, direction: ASC}",
            ", status: [COMPLETED], orderBy: {field: DURATION}",
            ', filter: {search: "battery"}, orderBy: {field: DURATION}',
        )
    ),
    '{ reviewInbox(first: 5, filter: {search: "battery"}) { totalCount edges { cursor } } }',
    '{ reviewInbox(first: 5, newestFirst: true, filter: {since: "2000-01-01T00:00:00Z"}) { totalCount } }',
    '{ reviewInbox(first: 5, after: "MjAyNi0wMS0wMVQwMDowMDowMCswMDowMHxh", newestFirst: true) { totalCount } }',  # noqa: E501
    '{ workflowStepsAwaitingReview(first: 5, filter: {search: "deploy"}) { totalCount edges { cursor } } }',
    '{ workflowStepsAwaitingReview(newestFirst: true, filter: {until: "2100-01-01T00:00:00Z"}) { totalCount } }',  # noqa: E501
    # the mission review inbox as one paged list
    "{ missionReviews(first: 5) { totalCount edges { cursor node { kind } } } }",
    "{ missionReviews(first: 5, newestFirst: true) { totalCount edges { cursor } } }",
    '{ missionReviews(first: 5, filter: {kinds: [ASSET, HOP_PLAN], search: "battery"}) { totalCount } }',
    '{ missionReviews(first: 5, filter: {since: "2000-01-01T00:00:00Z", until: "2100-01-01T00:00:00Z"}) '
    "{ totalCount edges { cursor } } }",
    '{ missionReviews(first: 5, after: "MjAyNi0wMS0wMVQwMDowMDowMCswMDowMHwxfGE=") { edges { cursor } } }',
    '{ missionReviews(first: 5, newestFirst: true, after: "MjAyNi0wMS0wMVQwMDowMDowMCswMDowMHwyfGE=") '
    "{ edges { cursor } } }",
    # the review inboxes by deadline (the decisions' due_key index), each item's open decision
    *(
        f"{{ {name}(first: 5, orderBy: DEADLINE) {{ totalCount edges {{ cursor node {{ {fields} }} }} }} }}"
        for name, fields in (
            ("reviewInbox", "openDecision { id }"),
            ("workflowStepsAwaitingReview", "openDecision { id }"),
            ("missionReviews", "openDecision { id }"),
        )
    ),
    '{ reviewInbox(first: 5, orderBy: DEADLINE, filter: {search: "battery"}) { edges { cursor } } }',
    "{ decisionInbox(first: 5, orderBy: DEADLINE) { totalCount edges { cursor } } }",
    "{ decisionInbox(first: 5, orderBy: DEADLINE, mine: true, kind: PLAN_REVIEW) { edges { cursor } } }",
    *(
        f'{{ {name}(first: 5, orderBy: DEADLINE, after: "{cursor}") {{ edges {{ cursor }} }} }}'
        for name, cursor in (
            ("reviewInbox", DUE_CURSOR),
            ("missionReviews", DUE_CURSOR),
            ("workflowStepsAwaitingReview", DUE_CURSOR),
            ("decisionInbox", DUE_CURSOR),
            ("workflowStepsAwaitingReview", UNDECIDED_CURSOR),
        )
    ),
    '{ missionReviews(first: 5, orderBy: DEADLINE, filter: {kinds: [ASSET, HOP_PLAN], search: "battery"}) '
    "{ edges { cursor } } }",
    "{ events(first: 5, newestFirst: true) { totalCount edges { cursor } } }",
    "{ events(after: 9, first: 5, newestFirst: true) { edges { cursor } } }",
    '{ events(first: 5, filter: {kinds: ["plan_stalled"]}) { totalCount edges { cursor } } }',
    '{ events(first: 5, newestFirst: true, filter: {kinds: ["step_started"]}) { edges { cursor } } }',
    f'{{ events(first: 5, filter: {{entityId: "{"0" * 8}-0000-0000-0000-{"0" * 12}"}}) {{ totalCount }} }}',
    '{ events(first: 5, newestFirst: true, filter: {since: "2000-01-01T00:00:00Z"}) { edges { cursor } } }',
    "{ stallAlerts(first: 5) { totalCount edges { cursor node { planId } } } }",
    '{ stallAlerts(first: 5, after: "99", since: "2000-01-01T00:00:00Z") { edges { cursor } } }',
]


@dataclass(frozen=True)
class Statement:
    sql: str
    params: tuple[Any, ...]


@pytest.fixture
def captured() -> Iterator[list[Statement]]:
    seen: list[Statement] = []

    def capture(conn: Any, cursor: Any, sql: str, params: Any, context: Any, executemany: bool) -> None:
        if not executemany and re.match(r"\s*(SELECT|UPDATE|DELETE|WITH)\b", sql, re.I):
            seen.append(Statement(sql, tuple(params) if isinstance(params, (list, tuple)) else ()))

    event.listen(Engine, "before_cursor_execute", capture)
    yield seen
    event.remove(Engine, "before_cursor_execute", capture)


def _sqlite_problems(path: str, statements: list[Statement]) -> dict[str, list[str]]:
    problems: dict[str, list[str]] = {}
    connection = sqlite3.connect(path)
    try:
        for statement in statements:
            rows = connection.execute(f"EXPLAIN QUERY PLAN {statement.sql}", statement.params).fetchall()
            found = []
            for *_, detail in rows:
                scan = re.match(r"SCAN (\w+)(?! USING)", detail)
                if scan and not detail.startswith("SCAN CONSTANT") and scan.group(1) not in WHOLE_TABLE_OK:
                    if FTS_MATCH.search(detail):
                        continue
                    found.append(detail)
                if "USE TEMP B-TREE FOR ORDER BY" in detail and re.search(r"\bLIMIT\b", statement.sql, re.I):
                    found.append(detail)
            if found:
                problems[statement.sql] = found
    finally:
        connection.close()
    return problems


def _pg_nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _pg_nodes(child)


async def _postgres_problems(url: str, statements: list[Statement]) -> dict[str, list[str]]:
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    problems: dict[str, list[str]] = {}
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute("SET enable_seqscan = off")
        for statement in statements:
            explained = await connection.fetchval(f"EXPLAIN (FORMAT JSON) {statement.sql}", *statement.params)
            plan = (explained if isinstance(explained, list) else __import__("json").loads(explained))[0][
                "Plan"
            ]
            found = []
            paged = re.search(r"\bLIMIT\b", statement.sql, re.I) is not None
            for node in _pg_nodes(plan):
                kind = node["Node Type"]
                if kind == "Seq Scan" and node.get("Relation Name") not in WHOLE_TABLE_OK:
                    found.append(f"Seq Scan on {node.get('Relation Name')}")
                if kind in ("Sort", "Incremental Sort") and paged:
                    found.append(f"{kind} by {node.get('Sort Key')}")
            if found:
                problems[statement.sql] = found
    finally:
        await connection.close()
    return problems


async def test_every_statement_on_a_hot_or_list_path_is_served_by_an_index(
    live_server: LiveServer, client: GraphQLClient, captured: list[Statement]
) -> None:
    await run_tours(live_server, client)
    for document in LISTS:
        await client.execute(document)
    runtime = live_server.app.state.runtime
    live_server.call(scan_stalls(runtime))
    live_server.call(run_workflow_timers(runtime))
    live_server.call(expire_assets(runtime))

    distinct = list({s.sql: s for s in captured}.values())
    assert len(distinct) > 40, f"only {len(distinct)} statements captured: is the capture still working?"
    url = live_server.settings.database_url
    if make_url(url).get_backend_name() == "sqlite":
        database = make_url(url).database
        assert database is not None
        problems = _sqlite_problems(database, distinct)
    else:
        problems = await _postgres_problems(url, distinct)
    report = "\n\n".join(f"{sql}\n  -> {'; '.join(found)}" for sql, found in problems.items())
    assert not problems, (
        f"{len(problems)} of {len(distinct)} statements are not served by an index:\n\n{report}"
    )


@pytest.mark.parametrize(
    ("document", "counts"),
    [
        ("{ researchPlans(first: 5) { edges { node { id } } } }", 0),
        ("{ researchPlans(first: 5) { totalCount edges { node { id } } } }", 1),
        ("{ researchPlans(first: 5) { ...T } } fragment T on ResearchPlanConnection { totalCount }", 1),
        ("{ researchPlans(first: 5) { ... on ResearchPlanConnection { totalCount } } }", 1),
        ("{ missions(first: 5) { edges { node { id } } } }", 0),
        ("{ workflows(first: 5) { pageInfo { hasNextPage } } }", 0),
        ("{ reviewInbox(first: 5) { edges { cursor } } }", 0),
        ("{ workflowStepsAwaitingReview(first: 5) { edges { cursor } } }", 0),
        ("{ workflowStepsAwaitingReview(first: 5) { totalCount } }", 1),
    ],
)
async def test_a_list_counts_its_rows_only_when_totalcount_is_selected(
    client: GraphQLClient, captured: list[Statement], document: str, counts: int
) -> None:
    await client.execute(document)
    listed = [s.sql for s in captured if "count(" in s.sql.lower() and "api_keys" not in s.sql]
    assert len(listed) == counts, listed
