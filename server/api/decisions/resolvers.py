"""Decision queries and mutations: the inbox across every domain, one decision, the
policies, and setting them."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from graphql import GraphQLError
from strawberry.permission import BasePermission
from strawberry.types import Info

from ...auth import Role
from ...machines.decision import DecisionKind
from ...services.decisions import inbox as decision_inbox
from ...services.decisions import policies as decision_policies
from ...services.decisions.due import due_cursor
from ...services.decisions.policies import PolicyKey, Scope
from ...services.pages import time_cursor
from ..context import Context
from ..descriptions import PAGE_AFTER, PAGE_FIRST, user_errors
from ..errors import UserError, run_mutation, run_query
from ..listing import ReviewOrder, ReviewOrderArg
from ..pagination import Connection, list_connection
from ..permissions import CanDrive
from .types import DecisionPolicyType, DecisionTermsInput, DecisionType

I = Info[Context, Any]  # noqa: E741
A = strawberry.argument


@strawberry.type
class DecisionQueries:
    @strawberry.field(
        description="Every decision waiting for a person, in every domain, oldest request first, with "
        "its assignee, deadline and escalation; `mine`: only those assigned to this key's name "
        "(user:<name>) or role (role:<role>). `first` is capped; `orderBy: DEADLINE` puts the nearest "
        "deadline first."
    )
    async def decision_inbox(
        self,
        info: I,
        mine: Annotated[bool, A(description="Only decisions assigned to this key.")] = False,
        kind: Annotated[DecisionKind | None, A(description="Only decisions of this kind.")] = None,
        first: Annotated[int, A(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, A(description=PAGE_AFTER)] = None,
        order_by: ReviewOrderArg = ReviewOrder.WAITING,
    ) -> Connection[DecisionType]:
        principal = info.context.principal
        by_deadline = order_by is ReviewOrder.DEADLINE
        return await list_connection(
            info,
            lambda session, size: decision_inbox.open_decisions(
                session, principal, size, after, mine=mine, kind=kind, by_deadline=by_deadline
            ),
            lambda session: decision_inbox.count_open_decisions(session, principal, mine=mine, kind=kind),
            due_cursor if by_deadline else lambda d: time_cursor(d.created_at, d.id),
            DecisionType.from_row,
            first,
        )

    @strawberry.field(description="One decision by id; null when it does not exist in your tenant.")
    async def decision(
        self, info: I, id: Annotated[strawberry.ID, A(description="The decision's id.")]
    ) -> DecisionType | None:
        tenant = info.context.principal.tenant_id
        row = await run_query(info, lambda s: decision_inbox.decision_by_id(s, tenant, str(id)))
        return DecisionType.from_row(row) if row is not None else None

    @strawberry.field(
        description="Every decision about one plan step, workflow step, mission, hop or asset, oldest first."
    )
    async def decisions_about(
        self, info: I, subject_id: Annotated[strawberry.ID, A(description="What they are about.")]
    ) -> list[DecisionType]:
        tenant = info.context.principal.tenant_id
        rows = await run_query(info, lambda s: decision_inbox.decisions_about(s, tenant, str(subject_id)))
        return [DecisionType.from_row(r) for r in rows or []]

    @strawberry.field(description="The tenant's decision defaults, by scope.")
    async def decision_policies(self, info: I) -> list[DecisionPolicyType]:
        tenant = info.context.principal.tenant_id
        rows = await run_query(info, lambda s: decision_inbox.policies(s, tenant))
        return [DecisionPolicyType.from_row(r) for r in rows or []]


@strawberry.type(description="What setDecisionPolicy set; only userErrors when it set nothing.")
class DecisionPolicyPayload:
    policy: DecisionPolicyType | None = strawberry.field(default=None, description="The policy as stored.")
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="What removeDecisionPolicy did.")
class RemoveDecisionPolicyPayload:
    removed: bool = strawberry.field(default=False, description="False when there was no such policy.")
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="What setDecisionTerms did; only userErrors when it changed nothing.")
class DecisionPayload:
    decision: DecisionType | None = strawberry.field(default=None, description="The decision, as it is now.")
    user_errors: list[UserError] = user_errors()


class CanWrite(BasePermission):
    message = "viewer keys only read"
    error_extensions = {"code": "FORBIDDEN"}

    def has_permission(self, source: Any, info: I, **kwargs: Any) -> bool:
        return info.context.principal.can_write


def _key(info: I, scope: Scope, scope_id: str | None, kind: DecisionKind | None) -> PolicyKey:
    if scope is Scope.TENANT and info.context.principal.role is not Role.ADMIN:
        raise GraphQLError(
            "only admin keys may set the tenant's decision defaults", extensions={"code": "FORBIDDEN"}
        )
    return PolicyKey(scope, scope_id or "", kind)


DRIVE: list[type[BasePermission]] = [CanDrive]


@strawberry.type
class DecisionMutations:
    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Set the defaults new decisions of a scope start with (open ones keep theirs): a "
        "deadline with its default outcome, an assignee, an escalation. The tenant scope needs an admin "
        "key; plans, missions and workflow definitions an agent or admin key.",
    )
    async def set_decision_policy(
        self,
        info: I,
        scope: Annotated[Scope, A(description="Where it applies.")],
        terms: Annotated[DecisionTermsInput, A(description="The defaults.")],
        scope_id: Annotated[
            str | None, A(description="The plan or mission id, or the workflow's name (not for tenant).")
        ] = None,
        kind: Annotated[DecisionKind | None, A(description="Only for this kind; null: every kind.")] = None,
    ) -> DecisionPolicyPayload:
        key = _key(info, scope, scope_id, kind)
        done, errors = await run_mutation(
            info, lambda tx: decision_policies.set_policy(tx, key, terms.terms())
        )
        if done is None:
            return DecisionPolicyPayload(user_errors=errors)
        return DecisionPolicyPayload(policy=DecisionPolicyType.from_row(done))

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Remove a scope's decision defaults (open decisions keep theirs). Same keys as "
        "setDecisionPolicy.",
    )
    async def remove_decision_policy(
        self,
        info: I,
        scope: Annotated[Scope, A(description="Where it applied.")],
        scope_id: Annotated[str | None, A(description="As in setDecisionPolicy.")] = None,
        kind: Annotated[DecisionKind | None, A(description="As in setDecisionPolicy.")] = None,
    ) -> RemoveDecisionPolicyPayload:
        key = _key(info, scope, scope_id, kind)
        done, errors = await run_mutation(info, lambda tx: decision_policies.remove_policy(tx, key))
        return RemoveDecisionPolicyPayload(removed=bool(done), user_errors=errors)

    @strawberry.mutation(
        permission_classes=[CanWrite],
        description="Give one open decision its own deadline, default outcome, assignee and escalation, "
        "timed from its request (an escalated one keeps its escalation and assignee). Agent, reviewer "
        "or admin keys.",
    )
    async def set_decision_terms(
        self,
        info: I,
        decision_id: Annotated[strawberry.ID, A(description="The open decision.")],
        terms: Annotated[DecisionTermsInput, A(description="Its new terms (unset ones are cleared).")],
    ) -> DecisionPayload:
        done, errors = await run_mutation(
            info, lambda tx: decision_policies.set_decision_terms(tx, str(decision_id), terms.terms())
        )
        if done is None:
            return DecisionPayload(user_errors=errors)
        return DecisionPayload(decision=DecisionType.from_row(done))
