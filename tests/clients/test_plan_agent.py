"""PlanAgent (the seed 003 loop) against a real server: what each call answered, not a bare None."""

from __future__ import annotations

import pytest
from flightdeck_client import ClientError, NextStep, PlanAgent, connect
from flightdeck_client.generated.enums import (
    BranchAction,
    BranchOperator,
    NextStepOutcome,
    PlanStatus,
    StepStatus,
    StepType,
    UserDecision,
)
from flightdeck_client.generated.input_types import (
    BranchingConditionInput,
    CreateResearchPlanInput,
    StepInput,
)

from tests.conftest import LiveServer


async def test_the_seed_003_loop_create_next_submit_review_resume(live_server: LiveServer) -> None:
    async with PlanAgent(live_server.url, session_id="s1") as agent:
        plan_id = await agent.create(
            "Why is the sky blue?", [("search", "Find sources"), ("synthesize", "Write it up")], title="sky"
        )
        first = await agent.next_step(plan_id)
        assert first.started
        assert first.step is not None
        assert first.step.instructions == "Find sources"
        submitted = await agent.submit(first.step.id, "three sources", data={"sources": 3}, confidence=0.9)
        assert submitted.step.status is StepStatus.COMPLETED
        assert submitted.step.result_data == {"sources": 3}
        assert submitted.plan_status is PlanStatus.EXECUTING
        assert (submitted.branch_fired, submitted.skipped_step_ids) == (None, [])
        second = await agent.next_step(plan_id)
        assert second.step is not None
        assert second.step.instructions == "Write it up"
        review = await agent.ask_for_review(second.step.id, "draft ready", ["Is the tone right?"])
        assert review.step.status is StepStatus.AWAITING_INPUT
        assert review.step.review_questions == ["Is the tone right?"]
        assert review.plan_status is PlanStatus.AWAITING_REVIEW
        assert await agent.resume(plan_id, "s2") is True
        with pytest.raises(ClientError) as refused:
            await agent.submit("00000000-0000-0000-0000-000000000000", "nothing")
        assert refused.value.code == "NOT_FOUND"


async def test_next_step_tells_started_waiting_nothing_pending_finished_and_failed_apart(
    live_server: LiveServer,
) -> None:
    async with PlanAgent(live_server.url, session_id="s1") as agent:
        plan_id = await agent.create("q", [("search", "only step")])
        started = await agent.next_step(plan_id)
        assert started.outcome is NextStepOutcome.STARTED
        assert started.step is not None
        busy = await agent.next_step(plan_id)
        assert (busy.outcome, busy.step, busy.in_progress_count, busy.failed_count) == (
            NextStepOutcome.NO_PENDING_STEPS,
            None,
            1,
            0,
        )
        assert busy.nothing_pending
        await agent.ask_for_review(started.step.id, "look")
        waiting = await agent.next_step(plan_id)
        assert waiting.awaiting_review
        assert waiting.plan.status is PlanStatus.AWAITING_REVIEW
        # A reviewer's approval completes the step, and with it the plan.
        decided = await agent.client.submit_user_decision(started.step.id, UserDecision.APPROVE)
        assert decided.submit_user_decision.user_errors == []
        done = await agent.next_step(plan_id)
        assert done.finished
        assert done.plan.status is PlanStatus.COMPLETED
        assert done.step is None

        other = await agent.create("q2", [("search", "a"), ("search", "b")])
        failed = await agent.client.fail_plan(other, "abandoned")
        assert failed.fail_plan.user_errors == []
        gone = await agent.next_step(other)
        assert gone.plan_failed
        assert gone.plan.failure_reason == "abandoned"
    outcomes = [
        NextStep(o, done.plan).started
        for o in (NextStepOutcome.STARTED, NextStepOutcome.PLAN_COMPLETE, NextStepOutcome.PLAN_FAILED)
    ]
    assert outcomes == [True, False, False]


async def test_submit_says_which_branch_fired_and_which_steps_it_skipped(live_server: LiveServer) -> None:
    async with PlanAgent(live_server.url, session_id="s1") as agent:
        made = await agent.client.create_research_plan(
            CreateResearchPlanInput(
                researchQuestion="branching",
                steps=[StepInput(stepType=StepType.SEARCH, instructions=f"step {n}") for n in (1, 2, 3)],
                branchingConditions=[
                    BranchingConditionInput(
                        afterStepOrder=1,
                        field="confidence",
                        op=BranchOperator.LT,
                        value=0.5,
                        action=BranchAction.SKIP_TO,
                        targetStepOrder=3,
                    )
                ],
                sessionId="s1",
            )
        )
        plan = made.create_research_plan
        assert plan.plan is not None
        step_ids = plan.step_ids
        first = await agent.next_step(plan.plan.id)
        assert first.step is not None
        submitted = await agent.submit(first.step.id, "weak evidence", confidence=0.2)
        assert submitted.branch_fired is not None
        assert submitted.branch_fired.action is BranchAction.SKIP_TO
        assert submitted.branch_fired.after_step_id == step_ids[0]
        assert submitted.branch_fired.target_step_id == step_ids[2]
        assert submitted.skipped_step_ids == [step_ids[1]]
        third = await agent.next_step(plan.plan.id)
        assert third.step is not None
        assert third.step.id == step_ids[2]


async def test_the_typed_client_reads_the_plan_it_drove(live_server: LiveServer) -> None:
    async with PlanAgent(live_server.url, session_id="s1") as agent:
        plan_id = await agent.create("q", [("search", "look")])
        async with connect(live_server.url) as client:
            plan = (await client.research_plan(plan_id)).research_plan
            assert plan is not None
            assert [s.instructions for s in plan.steps] == ["look"]
            status = (await client.get_plan_status(plan_id)).plan_status
            assert status is not None
            assert status.total_steps == 1
