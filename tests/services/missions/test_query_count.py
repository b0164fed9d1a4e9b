"""No N+1: a mission with its hops, tool steps and assets costs the same SQL statements however many
there are (counted with SQLAlchemy's ``before_cursor_execute`` on the engine the reads use)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from server.api.context import make_context
from server.api.schema import build_schema
from server.auth import Principal
from server.services.runtime import Runtime
from tests.api import mission_operations as mops
from tests.services.missions.driver import Crew

MISSIONS_QUERY = f"""
query {{ missions(first: 50) {{ edges {{ node {{ id status
  hops {{ edges {{ node {{ {mops.HOP}
    toolSteps(includeCancelled: true) {{ edges {{ node {{ {mops.STEP} }} }} }} }} }} }}
  assets {{ edges {{ node {{ {mops.ASSET} }} }} }}
}} }} }} }}
"""


@contextmanager
def counted(runtime: Runtime) -> Iterator[list[str]]:
    statements: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    engine = runtime.db.read_engine.sync_engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


async def run(runtime: Runtime, principal: Principal, query: str, variables: dict[str, Any]) -> list[str]:
    schema = build_schema(runtime.settings)
    with counted(runtime) as statements:
        result = await schema.execute(query, variables, context_value=make_context(runtime, principal))
    assert result.errors is None, result.errors
    return statements


async def mission_with(crew: Crew, hops: int, steps: int, assets: int) -> str:
    """A mission with ``hops`` completed hops of ``steps`` tool steps each, and ``assets`` assets."""
    mission_id = await crew.approved_mission()
    for _ in range(hops):
        _, step_ids = await crew.executing_hop(mission_id, steps=steps)
        for step_id in step_ids:
            await crew.complete_step(step_id)
    for _ in range(assets):
        await crew.propose_asset(mission_id, ttl=600)
    return mission_id


def selects(statements: list[str]) -> list[str]:
    return [s for s in statements if s.lstrip().upper().startswith("SELECT")]


async def test_one_mission_query_does_not_grow_with_hops_tool_steps_and_assets(
    crew: Crew, runtime: Runtime, principal: Principal
) -> None:
    small = await mission_with(crew, hops=1, steps=1, assets=1)
    large = await mission_with(crew, hops=4, steps=5, assets=6)

    few = await run(runtime, principal, mops.MISSION_QUERY, {"id": small})
    many = await run(runtime, principal, mops.MISSION_QUERY, {"id": large})

    # mission, its hops, their tool steps (one batch for all hops), its assets
    assert len(selects(few)) == len(selects(many)) == 4, selects(many)
    assert len(few) == len(many)


async def test_the_mission_list_batches_children_across_missions(
    crew: Crew, runtime: Runtime, principal: Principal
) -> None:
    await mission_with(crew, hops=1, steps=1, assets=1)
    one = await run(runtime, principal, MISSIONS_QUERY, {})
    for _ in range(3):
        await mission_with(crew, hops=2, steps=3, assets=2)
    four = await run(runtime, principal, MISSIONS_QUERY, {})

    # missions page, hops (one batch), tool steps (one batch), assets (one batch); no count, since the
    # query does not select totalCount
    assert len(selects(one)) == len(selects(four)) == 4, selects(four)
