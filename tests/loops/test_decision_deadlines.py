"""The decision timer in a real server, and its due reads served by their indexes."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.dialects import sqlite

from server.clock import FakeClock
from server.config import Settings
from server.services.decisions.deadlines import past_deadline_query, past_escalation_query
from server.services.runtime import Runtime
from tests.api import operations as ops
from tests.conftest import GraphQLClient, start_server, stop_server


@pytest.mark.parametrize(
    ("query", "index"),
    [
        (past_deadline_query, "ix_decisions_status_deadline"),
        (past_escalation_query, "ix_decisions_status_escalate"),
    ],
)
async def test_the_due_reads_use_their_indexes(runtime: Runtime, query: Any, index: str) -> None:
    if not runtime.db.is_sqlite:
        pytest.skip("PostgreSQL's planner prefers sequential scans on tables this small")
    path = runtime.db.url.database
    assert path is not None
    compiled = query(datetime(2026, 1, 1, tzinfo=UTC)).compile(
        dialect=sqlite.dialect(), compile_kwargs={"render_postcompile": True}
    )
    params = [compiled.params[name] for name in compiled.positiontup or []]
    params = [p.replace(tzinfo=None).isoformat(" ") if isinstance(p, datetime) else p for p in params]
    connection = sqlite3.connect(path)
    try:
        plan = connection.execute(f"EXPLAIN QUERY PLAN {compiled.string}", params).fetchall()
    finally:
        connection.close()
    details = " / ".join(row[-1] for row in plan)
    assert f"decisions USING INDEX {index}" in details, details


REVIEW = """
mutation($s: ID!) {
  requestUserReview(stepId: $s, summary: "look", decision: {deadlineSeconds: 30, defaultOutcome: APPROVE}) {
    userErrors { code field }
  }
}
"""


async def test_the_server_lifespan_applies_a_default_without_anyone_asking(
    settings: Settings, clock: FakeClock
) -> None:
    """A real server with a 50 ms interval approves a review whose deadline passed, once."""
    live = start_server(settings.model_copy(update={"decision_deadline_interval_seconds": 0.05}), clock)
    client = GraphQLClient(live.url)
    try:
        steps = [{"stepType": "SEARCH", "instructions": "find"}, {"stepType": "ANALYZE", "instructions": "x"}]
        created = await client.execute(ops.CREATE_PLAN, {"input": {"researchQuestion": "q", "steps": steps}})
        plan_id = created["createResearchPlan"]["plan"]["id"]
        started = await client.execute(ops.START_NEXT_STEP, {"planId": plan_id})
        step_id = started["startNextStep"]["step"]["id"]
        assert (await client.execute(REVIEW, {"s": step_id}))["requestUserReview"]["userErrors"] == []
        clock.advance(timedelta(seconds=31))
        deadline = asyncio.get_running_loop().time() + 10
        query = "query($s: ID!) { decisionsAbout(subjectId: $s) { status outcome } }"
        while True:
            [decision] = (await client.execute(query, {"s": step_id}))["decisionsAbout"]
            if decision["status"] == "DEFAULTED":
                break
            assert asyncio.get_running_loop().time() < deadline, decision
            await asyncio.sleep(0.05)
        assert decision["outcome"] == "approve"
        await asyncio.sleep(0.2)  # more passes of the loop add nothing
        history = await client.execute(
            "query($p: ID!) { events(rootId: $p, after: 0) { edges { node { kind actor } } } }",
            {"p": plan_id},
        )
        applied = [
            e["node"] for e in history["events"]["edges"] if e["node"]["kind"] == "decision_deadline_applied"
        ]
        assert applied == [{"kind": "decision_deadline_applied", "actor": "decision-deadline"}]
    finally:
        await client.aclose()
        stop_server(live)
