"""Retention of ended work: plans, workflows and missions final for long enough, with their children.

A root goes only when (1) its state is final in its machine, (2) it last changed before the cut-off,
(3) none of its events is left in the log (archival has taken every one of them: the history stays in
the archive files, and the seq order is never holed), and (4) no decision about it is still open. Its
children (steps, branching conditions, hops, tool steps, assets, compensations) go with it through
their foreign keys' ON DELETE CASCADE, its decisions in the same transaction. Anything not final, and
anything whose events are still in the log, is never touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, exists, select

from ...db.decision_models import Decision
from ...db.engine import Database
from ...db.mission_models import Mission
from ...db.models import Event, ResearchPlan
from ...db.workflow_models import Workflow
from ...machines.decision import DECISION_MACHINE
from ...machines.mission import MISSION_MACHINE
from ...machines.plan import PLAN_MACHINE
from ...machines.workflow import WORKFLOW_MACHINE
from .pacing import Paced


@dataclass(frozen=True)
class RootKind:
    model: Any
    final: frozenset[str]


ROOTS = (
    RootKind(ResearchPlan, frozenset(str(s) for s in PLAN_MACHINE.final)),
    RootKind(Workflow, frozenset(str(s) for s in WORKFLOW_MACHINE.final)),
    RootKind(Mission, frozenset(str(s) for s in MISSION_MACHINE.final)),
)
DECISION_FINAL = sorted(str(s) for s in DECISION_MACHINE.final)


async def prune_ended_roots(db: Database, before: datetime, *, batch: int) -> int:
    """Delete every root that ended before ``before`` and whose events are all archived; how many."""
    total = 0
    for kind in ROOTS:
        total += await _prune(db, kind, before, batch)
    return total


async def _prune(db: Database, kind: RootKind, before: datetime, batch: int) -> int:
    model = kind.model
    total = 0
    paced = Paced(batch)
    while True:
        async with paced.batch() as size, db.transaction() as session:
            ended = (
                await session.execute(
                    select(model.id, model.tenant_id)
                    .where(
                        model.status.in_(sorted(kind.final)),
                        model.updated_at < before,
                        ~exists().where(and_(Event.tenant_id == model.tenant_id, Event.root_id == model.id)),
                        ~exists().where(
                            and_(
                                Decision.tenant_id == model.tenant_id,
                                Decision.root_id == model.id,
                                Decision.status.not_in(DECISION_FINAL),
                            )
                        ),
                    )
                    .order_by(model.updated_at, model.id)
                    .limit(size)
                    # PostgreSQL: a root a writer holds is left for the next pass; a writer that comes
                    # after finds it gone (NOT_FOUND). SQLite's one writer needs no lock.
                    .with_for_update(of=model, skip_locked=True)
                )
            ).all()
            if not ended:
                return total
            ids = [row.id for row in ended]
            await session.execute(delete(Decision).where(Decision.root_id.in_(ids)))
            await session.execute(delete(model).where(model.id.in_(ids)))
            total += len(ids)
        if len(ended) < size:
            return total
