"""The server under fuzz: a real uvicorn server on a database of its own, in dev mode or with API keys.

One server serves a whole test module (starting one per case would cost more than the cases), so the
database fills up as the module runs: the fuzzer meets the objects earlier operations made.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import Base
from tests.api import mission_operations as mops
from tests.api import operations as plan_ops
from tests.api import workflow_operations as wops
from tests.conftest import LiveServer, _admin, _off_loop, _pg_url, start_server, stop_server

# Every table a request may write; the operation log is not one (it records every request, refused or
# not, and is switched off here anyway).
TABLES = tuple(sorted(t for t in Base.metadata.tables if t != "operation_log"))

# The keys made in key mode; requests also go as "none" (no Authorization header), "bogus" (a key that
# does not exist) and "other" (an admin of another tenant).
KEY_ROLES = {"admin": Role.ADMIN, "agent": Role.AGENT, "reviewer": Role.REVIEWER, "viewer": Role.VIEWER}

Rows = dict[str, list[tuple[Any, ...]]]


@dataclass
class Target:
    database: str  # "sqlite" | "postgres"
    auth: str  # "dev" | "key"
    live: LiveServer
    database_url: str
    tokens: dict[str, str | None]  # credential name -> bearer token (None: no header)
    seeded_ids: list[tuple[str | None, str]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.database}/{self.auth}"

    @property
    def url(self) -> str:
        return self.live.url

    @property
    def credentials(self) -> tuple[str, ...]:
        return tuple(self.tokens)

    def headers(self, who: str) -> dict[str, str]:
        token = self.tokens.get(who)
        return {"authorization": f"Bearer {token}"} if token else {}

    @property
    def reader(self) -> str:
        """The credential the health probe reads with."""
        return "viewer" if self.auth == "key" else "dev"


def fuzz_settings(database_url: str) -> Settings:
    # The timer loops are pushed an hour away (the clock is fake anyway): every row that changes while
    # the fuzzer runs was changed by the request it just sent, which is what "nothing written on a
    # refusal" compares against.
    return Settings(
        database_url=database_url,
        operation_log=False,
        stall_scan_interval_seconds=3600,
        workflow_timer_interval_seconds=3600,
        asset_expiry_scan_interval_seconds=3600,
        decision_deadline_interval_seconds=3600,
    )


async def _make_keys(database_url: str, clock: FakeClock) -> dict[str, str | None]:
    db = Database(database_url)
    try:
        tokens: dict[str, str | None] = {}
        for name, role in KEY_ROLES.items():
            tokens[name] = (await create_key(db, "fuzz", role, f"fuzz-{name}", clock.now()))[1]
        tokens["other"] = (await create_key(db, "fuzz-other", Role.ADMIN, "fuzz-other", clock.now()))[1]
    finally:
        await db.dispose()
    tokens["none"] = None
    tokens["bogus"] = "fdk_" + "x" * 43
    return tokens


def open_target(request: pytest.FixtureRequest, tmp: Path, database: str, auth: str) -> Iterator[Target]:
    """A migrated database of its own, keys if asked, a running server and a seeded world."""
    pg_name = None
    if database == "sqlite":
        path = tmp / "fuzz.db"
        path.write_bytes(Path(request.getfixturevalue("sqlite_template")).read_bytes())
        url = f"sqlite+aiosqlite:///{path}"
    else:
        template = request.getfixturevalue("postgres_template")
        pg_name = f"fd_fuzz_{uuid.uuid4().hex[:12]}"
        _off_loop(_admin, f'CREATE DATABASE "{pg_name}" TEMPLATE "{template}"')
        url = _pg_url(pg_name)
    clock = FakeClock()
    try:
        tokens = _off_loop(_make_keys, url, clock) if auth == "key" else {"dev": None}
        live = start_server(fuzz_settings(url), clock)
        try:
            target = Target(database, auth, live, url, tokens)
            target.seeded_ids = seed_world(target)
            yield target
        finally:
            stop_server(live)
    finally:
        if pg_name is not None:
            _off_loop(_admin, f'DROP DATABASE IF EXISTS "{pg_name}" WITH (FORCE)')


# -- a world to fuzz in: objects in many states, so that generated ids can reach past NOT_FOUND --


class _Seeder:
    def __init__(self, target: Target, who: str) -> None:
        self.http = httpx.Client(base_url=target.url, headers=target.headers(who), timeout=30)
        self.ids: list[tuple[str | None, str]] = []

    def run(self, document: str, variables: dict[str, Any]) -> dict[str, Any]:
        response = self.http.post("/graphql", json={"query": document, "variables": variables})
        body = response.json()
        assert response.status_code == 200, body
        assert "errors" not in body, body
        (payload,) = body["data"].values()
        assert payload.get("userErrors", []) == [], payload
        self.ids += ids_in(payload)
        assert isinstance(payload, dict)
        return payload

    def plans(self) -> None:
        for state in range(4):  # planning, executing, awaiting input, failed
            plan = self.run(plan_ops.CREATE_PLAN, {"input": plan_ops.plan_input(3)})
            if state >= 1:
                self.run(plan_ops.START_NEXT_STEP, {"planId": plan["plan"]["id"]})
            if state == 2:
                self.run(plan_ops.REQUEST_REVIEW, {"stepId": plan["stepIds"][0], "summary": "look"})
            if state == 3:
                self.run(plan_ops.FAIL_PLAN, {"planId": plan["plan"]["id"], "reason": "seeded"})
        self.run(plan_ops.START_SKILL, {"sessionId": "fuzz-session", "skillName": "research"})

    def mission(self) -> None:
        self.run(mops.REGISTER_TOOL, {"input": {"name": "web_search", "parameterSchema": mops.SEARCH_SCHEMA}})
        mission_id = self.run(mops.PROPOSE_MISSION, {"input": {"title": "Study", "goal": "Understand"}})[
            "mission"
        ]["id"]
        self.run(mops.mission_act("approveMission"), {"id": mission_id})
        hop = self.run(
            mops.PROPOSE_HOP,
            {"input": {"missionId": mission_id, "name": "hop", "plan": "p", "isFinal": False}},
        )["hop"]
        self.run(mops.hop_act("approveHopPlan"), {"id": hop["id"]})
        steps = self.run(
            mops.PROPOSE_IMPLEMENTATION,
            {"input": {"hopId": hop["id"], "toolSteps": [{"name": "one"}, {"name": "two"}]}},
        )["toolSteps"]
        self.run(mops.SELECT_TOOL, {"id": steps[0]["id"], "tool": "web_search"})
        self.run(mops.PROPOSE_ASSET, {"input": {"missionId": mission_id, "name": "notes", "ttlSeconds": 60}})

    def workflow(self) -> None:
        definition = {
            "name": "fuzz",
            "steps": [{"name": "a"}, {"name": "b", "dependsOn": ["a"], "approval": True}],
        }
        workflow_id = self.run(wops.CREATE, {"input": definition})["workflow"]["id"]
        self.run(wops.START, {"id": workflow_id})
        self.run(wops.CLAIM, {"agent": "fuzzer", "workflowId": workflow_id})


def seed_world(target: Target) -> list[tuple[str | None, str]]:
    seeder = _Seeder(target, "admin" if target.auth == "key" else "dev")
    try:
        seeder.plans()
        seeder.mission()
        seeder.workflow()
        if target.auth == "key":  # another tenant's objects: their ids must answer NOT_FOUND
            other = _Seeder(target, "other")
            other.plans()
            seeder.ids += other.ids
            other.http.close()
    finally:
        seeder.http.close()
    return sorted(set(seeder.ids), key=repr)


# The kinds of id the API takes, longest first: a key ending in one names the kind of the id under it.
ID_KINDS = (
    "skillExecution",
    "compensation",
    "workflow",
    "toolStep",
    "mission",
    "asset",
    "plan",
    "step",
    "hop",
)
_SKIP = {"node", "edges", "data"}


def kind_of(key: str) -> str | None:
    """``researchPlan`` -> plan, ``toolSteps`` -> toolStep, ``hopId`` -> hop; None for anything else."""
    stem = key.removesuffix("Ids").removesuffix("Id").removesuffix("s")
    for kind in ID_KINDS:
        if stem == kind or stem.endswith(kind[0].upper() + kind[1:]):
            return kind
    return None


def ids_in(value: Any, context: str = "") -> list[tuple[str | None, str]]:
    """(kind, id) of every id in a response: ``id`` under a key that names a kind, ``planId``, ``stepIds``."""
    found: list[tuple[str | None, str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "id" and _is_uuid(item):
                found.append((kind_of(context), item))
            elif key.endswith(("Id", "Ids")) and isinstance(item, str | list):
                found += [
                    (kind_of(key), v) for v in ([item] if isinstance(item, str) else item) if _is_uuid(v)
                ]
            else:
                found += ids_in(item, context if key in _SKIP else key)
    elif isinstance(value, list):
        for item in value:
            found += ids_in(item, context)
    return found


def _is_uuid(value: Any) -> bool:
    if not isinstance(value, str) or len(value) != 36:
        return False
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


# -- what is in the database --


async def snapshot(engine: AsyncEngine) -> Rows:
    rows: Rows = {}
    async with engine.connect() as conn:
        for table in TABLES:
            result = await conn.execute(text(f"SELECT * FROM {table}"))
            rows[table] = sorted((tuple(r) for r in result), key=repr)
    return rows


def changed_tables(before: Rows, after: Rows) -> list[str]:
    return [t for t in TABLES if before[t] != after[t]]
