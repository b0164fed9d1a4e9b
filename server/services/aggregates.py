"""Locking an aggregate root: one helper for every domain.

Every write locks the root its change belongs to (a plan, a workflow, a mission, a skill execution)
before it reads anything under it, and re-reads what it acts on once the lock is held:

- PostgreSQL: ``SELECT ... FOR UPDATE`` on the root. A child (a plan's step, a workflow's step or
  compensation, a mission's hop, tool step or asset) is found through its root: one statement locks
  the root whose id the child names (the child's row itself is not locked), then the child is read
  again as it is now. Every writer locks the root first, so there is no deadlock and no stale child.
- SQLite (the fast path): the transaction began with ``BEGIN IMMEDIATE``, which already holds the whole
  database, so a root is one read and a child and its root are one joined read.

Both read the rows afresh (``populate_existing``), whatever the session held before, on the driver
(``db/driver_rows.Rows``: the ORM's per-query set-up costs several times the SQL).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import bindparam, select

from ..db.driver_rows import Rows, loaded_columns
from ..db.mission_models import Asset, Hop, Mission, ToolStep
from ..db.models import PlanStep, ResearchPlan, SkillExecution
from ..db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from ..errors import not_found
from .runtime import Tx
from .validation import parse_id

R = TypeVar("R")
C = TypeVar("C")


@dataclass(frozen=True)
class Root(Generic[R]):
    """An aggregate root's table, its name in NOT_FOUND errors and its id argument's name."""

    model: type[R]
    entity: str
    argument: str
    lock: Rows = field(init=False, repr=False)

    def __post_init__(self) -> None:
        m: Any = self.model
        statement = (
            select(*loaded_columns(m))
            .where(m.id == bindparam("id"), m.tenant_id == bindparam("tenant"))
            .with_for_update()
        )
        object.__setattr__(self, "lock", Rows(statement, m))


@dataclass(frozen=True)
class Child(Generic[C, R]):
    """A table under a root: ``parent`` is its column holding the root's id."""

    model: type[C]
    root: Root[R]
    parent: str
    entity: str
    joined: Rows = field(init=False, repr=False)  # SQLite: the child and its root
    root_locked: Rows = field(init=False, repr=False)  # PostgreSQL: the root the child names, locked
    by_id: Rows = field(init=False, repr=False)  # PostgreSQL: the child, once its root is locked

    def __post_init__(self) -> None:
        m: Any = self.model
        r: Any = self.root.model
        parent = getattr(m, self.parent)
        mine = (m.id == bindparam("id"), m.tenant_id == bindparam("tenant"))
        joined = select(*loaded_columns(m), *loaded_columns(r)).join_from(m, r, r.id == parent).where(*mine)
        object.__setattr__(self, "joined", Rows(joined, m, r))
        root_locked = (
            select(*loaded_columns(r))
            .where(r.id == select(parent).where(*mine).scalar_subquery(), r.tenant_id == bindparam("tenant"))
            .with_for_update()
        )
        object.__setattr__(self, "root_locked", Rows(root_locked, r))
        object.__setattr__(self, "by_id", Rows(select(*loaded_columns(m)).where(m.id == bindparam("id")), m))


PLAN = Root(ResearchPlan, "plan", "planId")
WORKFLOW = Root(Workflow, "workflow", "workflowId")
MISSION = Root(Mission, "mission", "missionId")
SKILL_EXECUTION = Root(SkillExecution, "skill execution", "skillExecutionId")

PLAN_STEP = Child(PlanStep, PLAN, "plan_id", "step")
WORKFLOW_STEP = Child(WorkflowStep, WORKFLOW, "workflow_id", "step")
COMPENSATION = Child(WorkflowCompensation, WORKFLOW, "workflow_id", "compensation")
HOP = Child(Hop, MISSION, "mission_id", "hop")
TOOL_STEP = Child(ToolStep, MISSION, "mission_id", "tool step")
ASSET = Child(Asset, MISSION, "mission_id", "asset")


async def lock_root(tx: Tx, root: Root[R], root_id: str, field: str | None = None) -> R:
    """The root row, locked for this transaction; NOT_FOUND (on ``field``) outside the tenant."""
    name = field or root.argument
    found = await root.lock.first(tx.session, {"id": parse_id(root_id, name), "tenant": tx.tenant_id})
    if found is None:
        raise not_found(root.entity, root_id, [name])
    return cast(R, found[0])


async def lock_child(tx: Tx, child: Child[C, R], child_id: str, field: str) -> tuple[R, C]:
    """A child's root, locked, and the child as it is under the lock; NOT_FOUND (on ``field``)."""
    cid = parse_id(child_id, field)
    params = {"id": cid, "tenant": tx.tenant_id}
    if tx.runtime.db.is_sqlite:
        found = await child.joined.first(tx.session, params)
        if found is None:
            raise not_found(child.entity, child_id, [field])
        return cast(R, found[1]), cast(C, found[0])
    locked = await child.root_locked.first(tx.session, params)
    if locked is None:
        raise not_found(child.entity, child_id, [field])
    root = cast(R, locked[0])
    row = await child.by_id.first(tx.session, {"id": cid})
    if row is None:  # removed between the two reads, before the lock was held
        raise not_found(child.entity, child_id, [field])
    return root, cast(C, row[0])
