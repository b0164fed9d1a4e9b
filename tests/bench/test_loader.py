"""The benchmarks' bulk loader writes rows the server reads and moves like its own.

A small load on each database, then a real server lists the plans with their steps and conditions,
replays the events, and runs a loaded plan's first step to the loaded condition (confidence below 0.1
fails the plan): the loaded event counter must continue where the loaded events end.
"""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing

from sqlalchemy.engine import make_url

from bench import loader
from tests.conftest import GraphQLClient

PLANS = 25  # one loader batch holds 5,000: this covers the row shapes, not the batching
LIST = """{ researchPlans(first: 100) { totalCount edges { node { id status researchQuestion createdAt
  steps { id order status confidence } branchingConditions { afterStepId field op value action } } } }
  latestSeq }"""
START = "mutation($p: ID!) { startNextStep(planId: $p) { step { id order } userErrors { code } } }"
SUBMIT = """mutation($s: ID!) {
  submitStepResult(input: {stepId: $s, resultSummary: "weak", confidence: 0.05}) {
  step { status } plan { status failureReason } userErrors { code } } }"""
FOUND = """query($q: String!, $order: ListOrderField!) {
  researchPlans(first: 100, filter: {search: $q}, orderBy: {field: $order, direction: ASC}) {
  totalCount edges { node { researchQuestion } } } }"""
EVENTS = "query($after: Int!) { events(after: $after, first: 100) { edges { node { seq kind } } } }"


def schema(url: str) -> list[tuple[str, str, str]]:
    """The SQLite file's tables, indexes and triggers, as stored."""
    with closing(sqlite3.connect(str(make_url(url).database))) as db:  # `with` alone does not close it
        return db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").fetchall()


async def test_loaded_plans_read_and_move_like_the_servers_own(db_url: str, client: GraphQLClient) -> None:
    sqlite = db_url.startswith("sqlite")
    before = schema(db_url) if sqlite else []
    loaded = await asyncio.to_thread(loader.load, db_url, PLANS)
    if sqlite:  # the loader drops the secondary indexes and the search trigger for the load only
        assert schema(db_url) == before
    assert loaded.rows == {
        "research_plans": PLANS,
        "plan_steps": 3 * PLANS,
        "branching_conditions": PLANS,
        "events": PLANS + 3 * (PLANS - PLANS // 10),  # a creation each, and 3 step events per completed plan
    }

    data = await client.execute(LIST)
    plans = [e["node"] for e in data["researchPlans"]["edges"]]
    assert data["researchPlans"]["totalCount"] == PLANS
    assert [p["researchQuestion"] for p in plans] == [f"bench question {i}?" for i in reversed(range(PLANS))]
    statuses = {p["status"] for p in plans}
    assert statuses == {"COMPLETED", "PLANNING"}
    for plan in plans:
        assert [s["order"] for s in plan["steps"]] == [1, 2, 3]
        step_status = "COMPLETED" if plan["status"] == "COMPLETED" else "PENDING"
        assert {s["status"] for s in plan["steps"]} == {step_status}
        (condition,) = plan["branchingConditions"]
        assert condition == {
            "afterStepId": plan["steps"][0]["id"],
            "field": "confidence",
            "op": "LT",
            "value": 0.1,
            "action": "FAIL",
        }
    # The search index and the duration order's generated column hold the loaded plans, as if the
    # server had written them; the ascending order proves the indexes read them in order too.
    for order in ("CREATED_AT", "DURATION"):
        found = (await client.execute(FOUND, {"q": "question 1", "order": order}))["researchPlans"]
        questions = [e["node"]["researchQuestion"] for e in found["edges"]]
        wanted = [f"bench question {i}?" for i in range(PLANS) if "question 1" in f"bench question {i}?"]
        if order == "DURATION":  # the finished ones, shortest first (all 0.5 s: by id), then the rest
            assert sorted(questions) == sorted(wanted)
            assert questions[-1] == "bench question 19?"  # planning: longer than any finished
        else:
            assert questions == wanted
        assert found["totalCount"] == len(wanted)

    last_loaded = data["latestSeq"]
    assert last_loaded == loaded.rows["events"]
    seqs = [e["node"]["seq"] for e in (await client.execute(EVENTS, {"after": 0}))["events"]["edges"]]
    assert seqs == list(range(1, last_loaded + 1))  # all of them, in order (fewer than a page)

    waiting = next(p for p in plans if p["status"] == "PLANNING")
    started = (await client.execute(START, {"p": waiting["id"]}))["startNextStep"]
    assert started["step"] == {"id": waiting["steps"][0]["id"], "order": 1}
    submitted = (await client.execute(SUBMIT, {"s": started["step"]["id"]}))["submitStepResult"]
    assert submitted["userErrors"] == []
    assert submitted["plan"]["status"] == "FAILED"
    after = (await client.execute(EVENTS, {"after": last_loaded}))["events"]["edges"]
    assert [e["node"]["seq"] for e in after] == list(range(last_loaded + 1, last_loaded + 1 + len(after)))
    assert len(after) >= 4
