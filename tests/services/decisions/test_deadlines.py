"""Decision points with deadlines, default outcomes and escalation.

The fake clock moves past each deadline; ``run_decision_deadlines`` is called directly, as the
server's loop calls it. Nothing sleeps.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import select

from server.auth import Principal, Role
from server.clock import FakeClock
from server.db.decision_models import Decision
from server.db.engine import Database
from server.errors import ErrorCode
from server.loops.decision_deadlines import TIMER, run_decision_deadlines
from server.machines.decision import DecisionKind, Outcome, Terms
from server.services.decisions import inbox
from server.services.decisions.policies import (
    PolicyKey,
    Scope,
    remove_policy,
    request_terms,
    set_decision_terms,
    set_policy,
)
from server.services.missions.inputs import NewToolStep
from server.services.plans import review as plan_review
from server.services.plans.inputs import Decision as PlanDecision
from server.services.runtime import Runtime, Tx
from tests.services.helpers import Flight
from tests.services.missions.driver import GOOD_PARAMS, Crew
from tests.services.workflow_helpers import WorkflowFlight, step, wf

HOUR = 3600.0
TENANT_APPROVES = Terms(deadline_seconds=HOUR, default_outcome=Outcome.APPROVE)


async def decisions_of(flight: Flight, subject_id: str) -> list[Decision]:
    return await flight.read(lambda s: inbox.decisions_about(s, flight.tenant_id, subject_id))


async def policy(
    flight: Flight, scope: Scope, terms: Terms, scope_id: str = "", kind: DecisionKind | None = None
) -> None:
    await flight.call(lambda tx: set_policy(tx, PolicyKey(scope, scope_id, kind), terms))


async def review_with(flight: Flight, terms: Terms | None = None) -> tuple[str, str]:
    """A plan paused for review on its first step, the request carrying ``terms``: (plan, step)."""
    created = await flight.create(2)
    started = await flight.start(created.plan.id)
    assert started.step is not None
    step_id = started.step.id

    async def request(tx: Tx) -> object:
        if terms is not None:
            request_terms(tx, step_id, DecisionKind.PLAN_REVIEW, terms)
        return await plan_review.request_user_review(tx, step_id, "look", [])

    await flight.call(request)
    return created.plan.id, step_id


async def test_a_review_past_its_deadline_takes_the_tenant_default_once_as_the_system(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    await policy(flight, Scope.TENANT, TENANT_APPROVES)
    plan_id, step_id = await review_with(flight)
    [opened] = await decisions_of(flight, step_id)
    assert (opened.kind, opened.status, opened.default_outcome) == ("plan_review", "open", "approve")
    assert opened.deadline_at == opened.created_at + timedelta(hours=1)

    clock.advance(timedelta(minutes=59))
    assert (await run_decision_deadlines(runtime)).defaulted == []
    clock.advance(timedelta(minutes=1))
    seq = await flight.last_seq()
    done = await flight.checked(lambda: run_decision_deadlines(runtime))

    assert done.defaulted == [opened.id]
    assert (await flight.step(step_id)).status == "completed"
    assert (await flight.plan(plan_id)).status == "executing"
    [closed] = await decisions_of(flight, step_id)
    assert (closed.status, closed.outcome) == ("defaulted", "approve")
    new = [e for e in await flight.events() if e.seq > seq]
    assert {e.actor for e in new} == {TIMER}
    kinds = [e.kind for e in new]
    assert kinds[:2] == ["decision_transitioned", "decision_deadline_applied"]
    assert "step_transitioned" in kinds
    assert "user_reviewed" in kinds
    assert "decision_made" not in kinds  # the deadline's answer is not a person's
    applied = new[1]
    assert applied.data["outcome"] == "approve"
    assert "no answer by the deadline" in applied.data["reason"]
    reviewed = next(e for e in new if e.kind == "user_reviewed")
    assert reviewed.data["decision"] == "approve"
    # Exactly once: a later pass finds nothing due.
    clock.advance(timedelta(hours=5))
    again = await run_decision_deadlines(runtime)
    assert (again.defaulted, again.escalated, again.withdrawn) == ([], [], [])


async def test_the_request_beats_the_plan_which_beats_the_tenant(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    await policy(flight, Scope.TENANT, TENANT_APPROVES)
    created = await flight.create(3)
    plan_id = created.plan.id
    skip = Terms(deadline_seconds=600, default_outcome=Outcome.SKIP, assignee="role:reviewer")
    await policy(flight, Scope.PLAN, skip, plan_id, DecisionKind.PLAN_REVIEW)
    started = await flight.start(plan_id)
    assert started.step is not None
    await flight.review(started.step.id)
    [by_plan] = await decisions_of(flight, started.step.id)
    assert (by_plan.default_outcome, by_plan.assignee) == ("skip", "role:reviewer")
    assert by_plan.deadline_at == by_plan.created_at + timedelta(minutes=10)

    _, step_id = await review_with(flight, Terms(deadline_seconds=60, default_outcome=Outcome.REJECT))
    [by_request] = await decisions_of(flight, step_id)
    # The request's own deadline and default; the assignee, unset in the request, from the tenant (none).
    assert (by_request.default_outcome, by_request.assignee) == ("reject", None)

    clock.advance(timedelta(minutes=11))
    done = await run_decision_deadlines(runtime)
    assert sorted(done.defaulted) == sorted([by_plan.id, by_request.id])
    assert (await flight.step(started.step.id)).status == "skipped"
    assert (await flight.step(step_id)).status == "failed"
    failed = await flight.step(step_id)
    assert "no answer by the deadline" in (failed.failure_reason or "")


async def test_a_person_answering_first_closes_it_and_the_deadline_does_nothing(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    _, step_id = await review_with(flight, Terms(deadline_seconds=60, default_outcome=Outcome.REJECT))
    reviewer = flight.as_(Principal(flight.tenant_id, Role.REVIEWER, "rita"))
    seq = await flight.last_seq()
    await reviewer.decide(step_id, PlanDecision.APPROVE)

    [closed] = await decisions_of(flight, step_id)
    assert (closed.status, closed.outcome, closed.closed_at) == ("decided", "approve", clock.now())
    made = [e for e in await flight.events(kind="decision_made") if e.seq > seq]
    assert [(e.actor, e.data["outcome"], e.data["subjectId"]) for e in made] == [("rita", "approve", step_id)]
    clock.advance(timedelta(hours=1))
    assert (await run_decision_deadlines(runtime)).defaulted == []
    assert (await flight.step(step_id)).status == "completed"


async def test_escalation_reassigns_to_the_role_before_the_deadline_applies(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    terms = Terms(
        deadline_seconds=HOUR,
        default_outcome=Outcome.APPROVE,
        assignee="user:alice",
        escalate_after_seconds=600,
        escalation_role="admin",
    )
    _, step_id = await review_with(flight, terms)
    alice = Principal(flight.tenant_id, Role.REVIEWER, "alice")
    boss = Principal(flight.tenant_id, Role.ADMIN, "boss")

    async def mine(who: Principal) -> list[str]:
        page = await flight.read(lambda s: inbox.open_decisions(s, who, 50, None, mine=True))
        return [d.subject_id for d in page.items]

    assert (await mine(alice), await mine(boss)) == ([step_id], [])
    clock.advance(timedelta(minutes=10))
    done = await flight.checked(lambda: run_decision_deadlines(runtime))
    [escalated] = await decisions_of(flight, step_id)
    assert done.escalated == [escalated.id]
    assert done.defaulted == []
    assert (escalated.status, escalated.assignee, escalated.escalated_at) == (
        "escalated",
        "role:admin",
        clock.now(),
    )
    [event] = await flight.events(kind="decision_escalated")
    assert (event.actor, event.data["previousAssignee"], event.data["assignee"]) == (
        TIMER,
        "user:alice",
        "role:admin",
    )
    assert (await mine(alice), await mine(boss)) == ([], [step_id])
    assert (await flight.step(step_id)).status == "awaiting_input"
    # Escalated once only; the deadline still applies.
    assert (await run_decision_deadlines(runtime)).escalated == []
    clock.advance(timedelta(minutes=50))
    assert (await run_decision_deadlines(runtime)).defaulted == [escalated.id]
    assert (await flight.step(step_id)).status == "completed"


async def test_terms_the_domain_does_not_allow_are_refused_and_nothing_is_written(
    flight: Flight, crew: Crew
) -> None:
    plan_id = (await flight.create(1)).plan.id
    cases = [
        (
            PolicyKey(Scope.MISSION, "", DecisionKind.MISSION_APPROVAL),
            Terms(60, Outcome.SKIP),
            "defaultOutcome",
        ),
        (PolicyKey(Scope.TENANT, "", None), Terms(60, Outcome.SKIP), "defaultOutcome"),
        (PolicyKey(Scope.TENANT, "", None), Terms(60, None), "defaultOutcome"),
        (PolicyKey(Scope.TENANT, "", None), Terms(None, Outcome.APPROVE), "defaultOutcome"),
        (PolicyKey(Scope.TENANT, "", None), Terms(-1, Outcome.APPROVE), "deadlineSeconds"),
        (PolicyKey(Scope.TENANT, "", None), Terms(float("inf"), Outcome.APPROVE), "deadlineSeconds"),
        (
            PolicyKey(Scope.TENANT, "", None),
            Terms(60, Outcome.APPROVE, None, 60, "admin"),
            "escalateAfterSeconds",
        ),
        (PolicyKey(Scope.TENANT, "", None), Terms(None, None, None, 60, None), "escalationRole"),
        (PolicyKey(Scope.TENANT, "", None), Terms(None, None, None, 60, "boss"), "escalationRole"),
        (PolicyKey(Scope.TENANT, "", None), Terms(None, None, "alice"), "assignee"),
        (PolicyKey(Scope.TENANT, "", None), Terms(None, None, "role:king"), "assignee"),
        (PolicyKey(Scope.PLAN, plan_id, DecisionKind.WORKFLOW_GATE), Terms(60, Outcome.APPROVE), "kind"),
    ]
    for key, terms, field in cases:
        error = await flight.refused(
            lambda tx, k=key, t=terms: set_policy(tx, k, t), ErrorCode.VALIDATION_FAILED
        )
        assert [field] in [p.field for p in error.problems], (key, terms, error.problems)
    missing = PolicyKey(Scope.PLAN, "00000000-0000-0000-0000-000000000000", None)
    await flight.refused(lambda tx: set_policy(tx, missing, TENANT_APPROVES), ErrorCode.NOT_FOUND)


async def test_a_decision_that_ended_otherwise_is_withdrawn_and_a_closed_one_takes_no_terms(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    plan_id, step_id = await review_with(flight, Terms(deadline_seconds=60, default_outcome=Outcome.APPROVE))
    await flight.fail_plan(plan_id)
    [withdrawn] = await decisions_of(flight, step_id)
    assert withdrawn.status == "withdrawn"
    clock.advance(timedelta(minutes=5))
    assert (await run_decision_deadlines(runtime)).defaulted == []
    error = await flight.refused(
        lambda tx: set_decision_terms(tx, withdrawn.id, TENANT_APPROVES), ErrorCode.INVALID_TRANSITION
    )
    assert error.problems[0].field == ["decisionId"]


async def test_terms_of_one_open_decision_can_change_and_time_from_the_request(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    _, step_id = await review_with(flight)
    [opened] = await decisions_of(flight, step_id)
    assert opened.deadline_at is None
    clock.advance(timedelta(minutes=30))
    changed = await flight.call(
        lambda tx: set_decision_terms(tx, opened.id, Terms(HOUR, Outcome.REJECT, "role:reviewer"))
    )
    assert changed.deadline_at == opened.created_at + timedelta(hours=1)
    assert [e.kind for e in await flight.events(kind="decision_terms_changed")] == ["decision_terms_changed"]
    clock.advance(timedelta(minutes=30))
    assert (await run_decision_deadlines(runtime)).defaulted == [opened.id]
    assert (await flight.step(step_id)).status == "failed"


GATED = wf(step("draft"), step("sign-off", "draft", approval=True, timeout="2h"), step("send", "sign-off"))


async def test_a_workflow_gate_takes_its_definitions_default(
    workflows: WorkflowFlight, runtime: Runtime, clock: FakeClock
) -> None:
    await policy(workflows, Scope.WORKFLOW_DEFINITION, TENANT_APPROVES, "wf", DecisionKind.WORKFLOW_GATE)
    workflow_id = await workflows.running(GATED)
    await workflows.run_named(workflow_id, "draft")
    gate = (await workflows.wf_steps(workflow_id))["sign-off"]
    [opened] = await decisions_of(workflows, gate.id)
    assert (opened.kind, opened.root_id, opened.default_outcome) == ("workflow_gate", workflow_id, "approve")

    clock.advance(timedelta(hours=1))
    assert (await run_decision_deadlines(runtime)).defaulted == [opened.id]
    assert (await workflows.wf_steps(workflow_id))["sign-off"].status == "completed"
    assert (await workflows.workflow(workflow_id)).status == "executing"
    [approved] = await workflows.events(kind="workflow_step_approved")
    assert approved.actor == TIMER
    assert "no answer by the deadline" in approved.data["comment"]


async def test_without_a_default_the_seed_gate_timeout_stays(
    workflows: WorkflowFlight, runtime: Runtime, clock: FakeClock
) -> None:
    workflow_id = await workflows.running(GATED)
    await workflows.run_named(workflow_id, "draft")
    gate = (await workflows.wf_steps(workflow_id))["sign-off"]
    clock.advance(timedelta(hours=2))
    assert (await run_decision_deadlines(runtime)).defaulted == []
    await workflows.timers()
    assert (await workflows.wf_steps(workflow_id))["sign-off"].status == "failed"
    assert (await workflows.workflow(workflow_id)).status == "failed"
    [withdrawn] = await decisions_of(workflows, gate.id)
    assert withdrawn.status == "withdrawn"


async def test_mission_hop_and_asset_decisions_take_their_defaults(
    crew: Crew, runtime: Runtime, clock: FakeClock
) -> None:
    await policy(crew, Scope.TENANT, Terms(HOUR, Outcome.APPROVE))
    await policy(crew, Scope.TENANT, Terms(HOUR, Outcome.REJECT), kind=DecisionKind.ASSET_ACCEPTANCE)
    mission = await crew.propose_mission()
    clock.advance(timedelta(hours=1))
    assert len((await run_decision_deadlines(runtime)).defaulted) == 1
    assert (await crew.mission(mission.id)).status == "APPROVED"
    hop = await crew.propose_hop(mission.id)
    asset = await crew.propose_asset(mission.id, ttl=10 * HOUR)
    clock.advance(timedelta(hours=1))
    assert len((await run_decision_deadlines(runtime)).defaulted) == 2
    assert (await crew.hop(hop.id)).status == "READY_FOR_IMPLEMENTATION"
    rejected = await crew.asset(asset.id)
    assert rejected.status == "ERROR"
    assert "no answer by the deadline" in (rejected.status_reason or "")


async def test_two_instances_apply_each_deadline_exactly_once(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    await policy(flight, Scope.TENANT, TENANT_APPROVES)
    steps = [(await review_with(flight))[1] for _ in range(6)]
    clock.advance(timedelta(hours=1))
    other = Runtime(db=Database(runtime.settings.database_url), clock=clock, settings=runtime.settings)
    try:
        passes = await asyncio.gather(*(run_decision_deadlines(r) for r in (runtime, other, runtime, other)))
    finally:
        await other.db.dispose()
    applied = [d for p in passes for d in p.defaulted]
    assert len(applied) == len(set(applied)) == 6
    assert len(await flight.events(kind="decision_deadline_applied")) == 6
    assert [(await flight.step(s)).status for s in steps] == ["completed"] * 6
    await flight.assert_seq_gap_free()
    rows = await flight.read(lambda s: s.scalars(select(Decision.status)))
    assert sorted(rows.all()) == ["defaulted"] * 6


async def test_a_missions_own_default_rejects_an_implementation_back_to_the_agent(
    crew: Crew, runtime: Runtime, clock: FakeClock
) -> None:
    mission_id = await crew.approved_mission()
    reject_soon = Terms(600, Outcome.REJECT, "role:reviewer")
    await policy(crew, Scope.MISSION, reject_soon, mission_id, DecisionKind.HOP_IMPLEMENTATION)
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    steps = [NewToolStep("search", tool_name="web_search", parameters=GOOD_PARAMS)]
    await crew.propose_implementation(hop_id, steps)
    both = sorted(await decisions_of(crew, hop_id), key=lambda d: d.kind)  # opened at the same instant
    [implementation, plan_decision] = both
    assert (plan_decision.kind, plan_decision.status) == ("hop_plan", "decided")
    assert (implementation.kind, implementation.assignee) == ("hop_implementation", "role:reviewer")

    clock.advance(timedelta(minutes=10))
    assert (await run_decision_deadlines(runtime)).defaulted == [implementation.id]
    hop = await crew.hop(hop_id)
    assert hop.status == "READY_FOR_IMPLEMENTATION"
    assert "no answer by the deadline" in (hop.status_reason or "")
    [rejected] = await crew.events(kind="hop_implementation_rejected")
    assert rejected.actor == TIMER


async def test_a_removed_policy_no_longer_applies_to_new_decisions(flight: Flight) -> None:
    await policy(flight, Scope.TENANT, TENANT_APPROVES)
    _, before = await review_with(flight)
    tenant = PolicyKey(Scope.TENANT, "", None)
    assert await flight.call(lambda tx: remove_policy(tx, tenant)) is True
    assert await flight.call(lambda tx: remove_policy(tx, tenant)) is False
    _, after = await review_with(flight)
    [kept] = await decisions_of(flight, before)
    [plain] = await decisions_of(flight, after)
    assert (kept.default_outcome, plain.default_outcome, plain.deadline_at) == ("approve", None, None)
    assert await flight.read(lambda s: inbox.policies(s, flight.tenant_id)) == []


async def test_a_hops_two_decisions_close_each_on_its_own_answer(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    steps = [NewToolStep("search", tool_name="web_search", parameters=GOOD_PARAMS)]
    await crew.propose_implementation(hop_id, steps)
    await crew.reject_implementation(hop_id)  # back to READY_FOR_IMPLEMENTATION, the plan's own state
    await crew.propose_implementation(hop_id, steps)
    found = sorted(await decisions_of(crew, hop_id), key=lambda d: (d.kind, d.status))
    assert [(d.kind, d.status, d.outcome) for d in found] == [
        ("hop_implementation", "decided", "reject"),
        ("hop_implementation", "open", None),
        ("hop_plan", "decided", "approve"),
    ]
