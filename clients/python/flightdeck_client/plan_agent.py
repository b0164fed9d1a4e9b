"""The seed 003 loop for a research agent: create a plan, take the next step, submit, ask for review,
resume in a new session.

    async with PlanAgent("http://127.0.0.1:8000", session_id="session-1") as agent:
        plan_id = await agent.create("Why is the sky blue?", [("search", "Find sources")])
        while (next_step := await agent.next_step(plan_id)).started:
            await agent.submit(next_step.step.id, "what I found", data={"sources": 3})
        # next_step.finished, .awaiting_review, .nothing_pending or .plan_failed says why it stopped
"""

from __future__ import annotations

from typing import Any, TypeVar

from .connection import connect, raise_for
from .errors import ClientError
from .generated.client import FlightdeckGraphQL
from .generated.enums import StepType
from .generated.input_types import (
    CreateResearchPlanInput,
    DecisionTermsInput,
    StepInput,
    SubmitStepResultInput,
)
from .results import FormattingNote, NextStep, ReviewRequested, StepSubmitted

T = TypeVar("T")


def _answered(value: T | None) -> T:
    """A payload field the server fills whenever it reports no userErrors."""
    if value is None:
        raise ClientError("BAD_RESPONSE", "the server answered without a field it always sends")
    return value


class PlanAgent:
    def __init__(
        self, url: str | FlightdeckGraphQL, *, session_id: str | None = None, token: str | None = None
    ) -> None:
        self.client = connect(url, token) if isinstance(url, str) else url
        self.session_id = session_id

    async def __aenter__(self) -> PlanAgent:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.http_client.aclose()

    async def create(self, question: str, steps: list[tuple[str, str]], title: str = "") -> str:
        """A new plan: ``steps`` are (step type, instructions) pairs, e.g. ("search", "Find ...")."""
        plan = CreateResearchPlanInput(
            researchQuestion=question,
            title=title,
            steps=[StepInput(stepType=StepType(kind.upper()), instructions=text) for kind, text in steps],
            sessionId=self.session_id,
        )
        payload = (await self.client.create_research_plan(plan)).create_research_plan
        raise_for(payload.user_errors)
        return _answered(payload.plan).id

    async def next_step(self, plan_id: str) -> NextStep:
        """Start the next pending step: ``started`` with the step, or the reason there is none to start
        (``finished``, ``awaiting_review``, ``nothing_pending``, ``plan_failed``)."""
        payload = (await self.client.start_next_step(plan_id, self.session_id)).start_next_step
        raise_for(payload.user_errors)
        return NextStep(
            outcome=_answered(payload.outcome),
            plan=_answered(payload.plan),
            step=payload.step,
            in_progress_count=payload.in_progress_count or 0,
            failed_count=payload.failed_count or 0,
            output_media_type=payload.output_media_type,
            output_formatting_instructions=payload.output_formatting_instructions,
            plan_formatting_notes=payload.plan_formatting_notes,
            step_formatting_notes=[
                FormattingNote(n.step_id, n.order, n.notes) for n in payload.step_formatting_notes
            ],
        )

    async def submit(
        self, step_id: str, summary: str, data: dict[str, Any] | None = None, confidence: float | None = None
    ) -> StepSubmitted:
        """Complete the step with its result; says which branching condition fired and what it skipped."""
        result = SubmitStepResultInput(
            stepId=step_id, resultSummary=summary, resultData=data, confidence=confidence
        )
        payload = (await self.client.submit_step_result(result)).submit_step_result
        raise_for(payload.user_errors)
        return StepSubmitted(
            _answered(payload.step),
            _answered(payload.plan),
            payload.branch_fired,
            list(payload.skipped_step_ids),
        )

    async def ask_for_review(
        self,
        step_id: str,
        summary: str,
        questions: list[str] | None = None,
        decision: DecisionTermsInput | None = None,
    ) -> ReviewRequested:
        """Pause the step for a person (the plan AWAITING_REVIEW) until they decide; ``decision``: this
        review's own deadline, default outcome, assignee and escalation."""
        payload = (
            await self.client.request_user_review(step_id, summary, questions, decision)
        ).request_user_review
        raise_for(payload.user_errors)
        return ReviewRequested(_answered(payload.step), _answered(payload.plan))

    async def resume(self, plan_id: str, session_id: str) -> bool:
        """Take the plan over in a new session; True when it was last driven by another one."""
        self.session_id = session_id
        payload = (await self.client.resume_session(plan_id, session_id)).resume_session
        raise_for(payload.user_errors)
        return bool(payload.resumed)
