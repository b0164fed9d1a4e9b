"""A driver for the mission services: every call runs in its own unit of work and is checked.

``Crew.call`` asserts, for every mutation, that each state change of a mission, hop, tool step or asset
is explained by ``<entity>_transitioned`` events along edges of the machine's table, that the tenant's
``seq`` stays gap-free, and that every mission of the tenant satisfies seed 004's coordination tables
afterwards. ``Crew.refused`` (``Flight``'s) asserts that a failing mutation leaves every table as it was.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from server.auth import Principal
from server.db.decision_models import Decision
from server.db.mission_models import Asset, Hop, Mission, Tool, ToolStep
from server.db.models import Event, TenantCounter
from server.errors import ServiceError
from server.machines.errors import InvalidTransition
from server.machines.mission import HopStatus, MissionStatus, ToolStepStatus
from server.machines.mission_coordination import HopView, coordination_problems
from server.services.missions import assets as mission_assets
from server.services.missions import execution as mission_execution
from server.services.missions import implementation as mission_implementation
from server.services.missions import proposals as mission_proposals
from server.services.missions import tools as mission_tools
from server.services.missions.inputs import NewAsset, NewHop, NewMission, NewTool, NewToolStep
from server.services.missions.rows import MissionResult
from server.services.runtime import Tx, unit_of_work
from tests.services.helpers import MACHINES, Flight, StateKey, assert_transitions_explain_changes

T = TypeVar("T")

SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string", "minLength": 1}, "limit": {"type": "integer", "minimum": 1}},
    "required": ["query"],
    "additionalProperties": False,
}
GOOD_PARAMS: dict[str, Any] = {"query": "cold weather battery", "limit": 5}


async def mission_states(session: AsyncSession, tenant_id: str) -> dict[StateKey, str]:
    states: dict[StateKey, str] = {}
    models = (
        ("mission", Mission),
        ("hop", Hop),
        ("tool_step", ToolStep),
        ("asset", Asset),
        ("decision", Decision),
    )
    for entity, model in models:
        rows = await session.execute(select(model.id, model.status).where(model.tenant_id == tenant_id))
        states.update({(entity, rid): status for rid, status in rows.all()})
    return states


async def coordination_in_db(session: AsyncSession, tenant_id: str) -> dict[str, list[str]]:
    """Mission id -> its coordination problems, for every mission of the tenant that has any."""
    missions = (await session.scalars(select(Mission).where(Mission.tenant_id == tenant_id))).all()
    hops = (await session.scalars(select(Hop).where(Hop.tenant_id == tenant_id).order_by(Hop.sequence))).all()
    steps = (await session.scalars(select(ToolStep).where(ToolStep.tenant_id == tenant_id))).all()
    found = {}
    for mission in missions:
        views = [
            HopView(
                h.id,
                HopStatus(h.status),
                h.is_final,
                tuple(ToolStepStatus(s.status) for s in steps if s.hop_id == h.id),
            )
            for h in hops
            if h.mission_id == mission.id
        ]
        problems = coordination_problems(mission.id, MissionStatus(mission.status), views)
        if problems:
            found[mission.id] = problems
    return found


@dataclass
class TenantRows:
    """Every row one tenant owns in the mission tables, its events and its counter, as dicts."""

    tables: dict[str, list[dict[str, Any]]]

    @staticmethod
    async def read(session: AsyncSession, tenant_id: str) -> TenantRows:
        tables = {}
        for model in (Mission, Hop, ToolStep, Asset, Tool, Decision, Event, TenantCounter):
            table = model.__table__
            rows = (await session.execute(select(table).where(table.c.tenant_id == tenant_id))).mappings()
            tables[table.name] = sorted((dict(r) for r in rows), key=repr)
        return TenantRows(tables)

    def states(self) -> dict[StateKey, str]:
        entities = {
            "missions": "mission",
            "hops": "hop",
            "tool_steps": "tool_step",
            "assets": "asset",
            "decisions": "decision",
        }
        return {
            (entity, r["id"]): r["status"] for name, entity in entities.items() for r in self.tables[name]
        }

    def last_seq(self) -> int:
        return max((r["seq"] for r in self.tables["events"]), default=0)

    def events_after(self, seq: int) -> list[Any]:
        return sorted(
            (SimpleNamespace(**r) for r in self.tables["events"] if r["seq"] > seq), key=lambda e: e.seq
        )

    def coordination(self) -> dict[str, list[str]]:
        steps = self.tables["tool_steps"]
        found = {}
        for mission in self.tables["missions"]:
            hops = sorted(
                (h for h in self.tables["hops"] if h["mission_id"] == mission["id"]),
                key=lambda h: h["sequence"],
            )
            views = [
                HopView(
                    h["id"],
                    HopStatus(h["status"]),
                    h["is_final"],
                    tuple(ToolStepStatus(s["status"]) for s in steps if s["hop_id"] == h["id"]),
                )
                for h in hops
            ]
            problems = coordination_problems(mission["id"], MissionStatus(mission["status"]), views)
            if problems:
                found[mission["id"]] = problems
        return found


class Crew(Flight):
    """Drives the mission services as one principal; remembers nothing but what the database holds
    (``Flight``'s reads, ``refused`` and ``snapshot`` serve as they are)."""

    _rows: TenantRows | None = None

    def as_(self, principal: Principal) -> Crew:
        return Crew(self.runtime, principal, self.clock)

    # -- reads --

    async def get(self, model: type[T], row_id: str) -> T:
        row = await self.read(lambda s: s.get(model, row_id))
        assert row is not None
        return row

    async def mission(self, mission_id: str) -> Mission:
        return await self.get(Mission, mission_id)

    async def hop(self, hop_id: str) -> Hop:
        return await self.get(Hop, hop_id)

    async def step(self, step_id: str) -> ToolStep:
        return await self.get(ToolStep, step_id)

    async def asset(self, asset_id: str) -> Asset:
        return await self.get(Asset, asset_id)

    async def steps(self, hop_id: str) -> list[ToolStep]:
        async def load(s: AsyncSession) -> list[ToolStep]:
            q = select(ToolStep).where(ToolStep.hop_id == hop_id).order_by(ToolStep.position)
            return list((await s.scalars(q)).all())

        return await self.read(load)

    async def statuses(self, hop_id: str) -> list[str]:
        return [s.status for s in await self.steps(hop_id)]

    async def last_seq(self) -> int:
        counter = await self.read(lambda s: s.get(TenantCounter, self.tenant_id))
        return counter.last_seq if counter else 0

    async def new_events(self, after_seq: int) -> list[Event]:
        return await self.events(after=after_seq)

    # -- checked writes --

    async def call(self, fn: Callable[[Tx], Awaitable[T]]) -> T:
        before = await self.read(lambda s: mission_states(s, self.tenant_id))
        seq0 = await self.last_seq()
        async with unit_of_work(self.runtime, self.principal) as tx:
            result = await fn(tx)
        after = await self.read(lambda s: mission_states(s, self.tenant_id))
        events = await self.new_events(seq0)
        # A row created in this call and moved on at once (a tool step proposed with its tool named)
        # is explained by a chain from its machine's initial state.
        for key in after.keys() - before.keys():
            before[key] = MACHINES[key[0]].initial.value
        assert_transitions_explain_changes(before, after, events)
        assert [e.seq for e in events] == list(range(seq0 + 1, seq0 + 1 + len(events)))
        assert all(e.root_type in ("mission", "tool") for e in events)
        assert await self.read(lambda s: coordination_in_db(s, self.tenant_id)) == {}
        return result

    async def attempt(self, fn: Callable[[Tx], Awaitable[object]]) -> bool:
        """Run ``fn``: accepted with every ``call`` check, or refused with the tenant's rows untouched.

        Reads the tenant's rows once per call (the rows after one call are the rows before the next);
        ``forget`` them when something else writes.
        """
        before = self._rows or await self.read(lambda s: TenantRows.read(s, self.tenant_id))
        try:
            async with unit_of_work(self.runtime, self.principal) as tx:
                await fn(tx)
        except (ServiceError, InvalidTransition):
            after = await self.read(lambda s: TenantRows.read(s, self.tenant_id))
            assert after == before, "a refused mutation wrote something"
            self._rows = after
            return False
        after = await self.read(lambda s: TenantRows.read(s, self.tenant_id))
        self._rows = after
        old, new = before.states(), after.states()
        for key in new.keys() - old.keys():
            old[key] = MACHINES[key[0]].initial.value
        seq0 = before.last_seq()
        events = after.events_after(seq0)
        assert_transitions_explain_changes(old, new, events)
        assert [e.seq for e in events] == list(range(seq0 + 1, seq0 + 1 + len(events)))
        assert after.coordination() == {}
        return True

    def forget(self) -> None:
        self._rows = None

    # -- the services, one per intent --

    async def register_tool(self, name: str = "web_search", schema: dict[str, Any] | None = None) -> Tool:
        new = NewTool(name, SEARCH_SCHEMA if schema is None else schema, "Searches the web.")
        return await self.call(lambda tx: mission_tools.register_tool(tx, new))

    async def propose_mission(self, title: str = "Battery study", goal: str = "Why cold hurts") -> Mission:
        done = await self.call(lambda tx: mission_proposals.propose_mission(tx, NewMission(title, goal)))
        return done.mission

    async def approve_mission(self, mission_id: str) -> MissionResult:
        return await self.call(lambda tx: mission_proposals.approve_mission(tx, mission_id))

    async def reject_mission(self, mission_id: str, reason: str = "out of scope") -> MissionResult:
        return await self.call(lambda tx: mission_proposals.reject_mission(tx, mission_id, reason))

    async def cancel_mission(self, mission_id: str, reason: str = "no longer needed") -> MissionResult:
        return await self.call(lambda tx: mission_proposals.cancel_mission(tx, mission_id, reason))

    async def cancel_hop(self, hop_id: str, reason: str = "wrong direction") -> MissionResult:
        return await self.call(lambda tx: mission_proposals.cancel_hop(tx, hop_id, reason))

    async def propose_hop(self, mission_id: str, name: str = "gather", final: bool = False) -> Hop:
        new = NewHop(mission_id, name, f"plan of {name}", final)
        done = await self.call(lambda tx: mission_proposals.propose_hop(tx, new))
        assert done.hop is not None
        return done.hop

    async def approve_hop_plan(self, hop_id: str) -> MissionResult:
        return await self.call(lambda tx: mission_proposals.approve_hop_plan(tx, hop_id))

    async def reject_hop_plan(self, hop_id: str, reason: str = "too broad") -> MissionResult:
        return await self.call(lambda tx: mission_proposals.reject_hop_plan(tx, hop_id, reason))

    async def propose_implementation(self, hop_id: str, steps: list[NewToolStep]) -> MissionResult:
        return await self.call(
            lambda tx: mission_implementation.propose_hop_implementation(tx, hop_id, steps)
        )

    async def select_tool(self, step_id: str, tool_name: str = "web_search") -> MissionResult:
        return await self.call(lambda tx: mission_implementation.select_tool(tx, step_id, tool_name))

    async def configure(self, step_id: str, parameters: dict[str, Any] | None = None) -> MissionResult:
        params = GOOD_PARAMS if parameters is None else parameters
        return await self.call(lambda tx: mission_implementation.configure_tool_step(tx, step_id, params))

    async def approve_implementation(self, hop_id: str) -> MissionResult:
        return await self.call(lambda tx: mission_implementation.approve_hop_implementation(tx, hop_id))

    async def reject_implementation(self, hop_id: str, reason: str = "wrong tools") -> MissionResult:
        return await self.call(
            lambda tx: mission_implementation.reject_hop_implementation(tx, hop_id, reason)
        )

    async def fail_implementation(self, hop_id: str, reason: str = "cannot be done") -> MissionResult:
        return await self.call(lambda tx: mission_implementation.fail_hop_implementation(tx, hop_id, reason))

    async def start_hop(self, hop_id: str) -> MissionResult:
        return await self.call(lambda tx: mission_execution.start_hop(tx, hop_id))

    async def complete_step(self, step_id: str, result: Any = None) -> MissionResult:
        return await self.call(lambda tx: mission_execution.complete_tool_step(tx, step_id, result))

    async def fail_step(self, step_id: str, reason: str = "tool crashed") -> MissionResult:
        return await self.call(lambda tx: mission_execution.fail_tool_step(tx, step_id, reason))

    async def retry_step(self, step_id: str) -> MissionResult:
        return await self.call(lambda tx: mission_execution.retry_tool_step(tx, step_id))

    async def retry_hop(self, hop_id: str) -> MissionResult:
        return await self.call(lambda tx: mission_execution.retry_hop(tx, hop_id))

    async def propose_asset(self, mission_id: str, ttl: float | None = None, name: str = "report") -> Asset:
        new = NewAsset(mission_id, name, "the findings", "text/markdown", ttl)
        done = await self.call(lambda tx: mission_assets.propose_asset(tx, new))
        assert done.asset is not None
        return done.asset

    async def asset_act(self, act: str, asset_id: str, *args: Any) -> MissionResult:
        fn = getattr(mission_assets, act)
        return await self.call(lambda tx: fn(tx, asset_id, *args))

    # -- common set-ups --

    async def approved_mission(self) -> str:
        mission = await self.propose_mission()
        await self.approve_mission(mission.id)
        return mission.id

    async def hop_ready_for_implementation(self, mission_id: str, final: bool = False) -> str:
        hop = await self.propose_hop(mission_id, final=final)
        await self.approve_hop_plan(hop.id)
        return hop.id

    async def implemented_hop(
        self, mission_id: str, steps: int = 2, final: bool = False
    ) -> tuple[str, list[str]]:
        """A hop READY_FOR_EXECUTION (mission HOP_READY) with ``steps`` configured tool steps."""
        hop_id = await self.hop_ready_for_implementation(mission_id, final)
        new = [
            NewToolStep(f"search {i + 1}", tool_name="web_search", parameters=GOOD_PARAMS)
            for i in range(steps)
        ]
        done = await self.propose_implementation(hop_id, new)
        await self.approve_implementation(hop_id)
        return hop_id, [s.id for s in done.tool_steps]

    async def executing_hop(
        self, mission_id: str, steps: int = 2, final: bool = False
    ) -> tuple[str, list[str]]:
        hop_id, step_ids = await self.implemented_hop(mission_id, steps, final)
        await self.start_hop(hop_id)
        return hop_id, step_ids
