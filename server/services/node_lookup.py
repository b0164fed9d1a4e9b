"""Any object by id, whatever its table (the Relay ``node`` / ``nodes`` queries).

Ids are UUIDs, unique across tables, so an id alone names one row. One query finds which tables hold
the ids (a UNION ALL of primary-key lookups, scoped to the tenant); then one query per table found reads
the rows. Asking for 100 ids costs two queries when they are all plans, not 100 or 13.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import literal_column, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from ..db.decision_models import Decision
from ..db.mission_models import Asset, Hop, Mission, Tool, ToolStep
from ..db.models import Base, BranchingConditionRow, PlanStep, ResearchOutput, ResearchPlan, SkillExecution
from ..db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from ..errors import ServiceError, invalid
from .validation import Problems, parse_id

# Every table whose rows have a stable UUID id of their own (events and operation records are numbered).
# Typed loosely: each has ``id`` and ``tenant_id`` columns, which ``Base`` itself does not declare.
NODE_MODELS: tuple[Any, ...] = (
    ResearchPlan,
    PlanStep,
    BranchingConditionRow,
    SkillExecution,
    ResearchOutput,
    Mission,
    Hop,
    ToolStep,
    Asset,
    Tool,
    Workflow,
    WorkflowStep,
    WorkflowCompensation,
    Decision,
)


async def node_by_id(session: AsyncSession, tenant_id: str, raw_id: str) -> Base | None:
    """The tenant's object with this id, or None; VALIDATION_FAILED when it is not an id at all."""
    node_id = parse_id(raw_id, "id")
    return (await rows_by_id(session, tenant_id, [node_id])).get(node_id)


async def nodes_by_id(
    session: AsyncSession, tenant_id: str, raw_ids: Sequence[str], limit: int
) -> list[Base | None]:
    """The tenant's objects with these ids, in the order asked (repeats included), None where unknown.

    VALIDATION_FAILED for more than ``limit`` ids or any malformed one (naming its position).
    """
    if len(raw_ids) > limit:
        raise invalid(f"ids lists {len(raw_ids)} ids; at most {limit} may be asked for at once", ["ids"])
    problems = Problems()
    node_ids: list[str] = []
    for i, raw in enumerate(raw_ids):
        try:
            node_ids.append(parse_id(raw, "ids"))
        except ServiceError:
            problems.add(f"ids[{i}] is not a valid id: {raw!r}", ["ids", str(i)])
    problems.raise_if_any()
    found = await rows_by_id(session, tenant_id, node_ids)
    return [found.get(node_id) for node_id in node_ids]


async def rows_by_id(session: AsyncSession, tenant_id: str, ids: Sequence[str]) -> dict[str, Base]:
    """The tenant's rows with these canonical ids, by id; an id of no row of the tenant is absent."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    located = union_all(
        *(
            select(literal_column(str(kind)).label("kind"), model.id).where(
                model.id.in_(wanted), model.tenant_id == tenant_id
            )
            for kind, model in enumerate(NODE_MODELS)
        )
    )
    ids_by_kind: dict[int, list[str]] = defaultdict(list)
    for kind, row_id in await session.execute(located):
        ids_by_kind[int(kind)].append(row_id)
    found: dict[str, Base] = {}
    for kind, kind_ids in sorted(ids_by_kind.items()):
        model = NODE_MODELS[kind]
        for row in await session.scalars(select(model).where(model.id.in_(kind_ids))):
            found[row.id] = row
    return found
