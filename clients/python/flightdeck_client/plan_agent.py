"""The seed 003 loop for a research agent: create a plan, take the next step, submit, ask for review,
resume in a new session.

    async with PlanAgent("http://127.0.0.1:8000", session_id="session-1") as agent:
        plan_id = await agent.create("Why is the sky blue?", [("search", "Find sources")])
        while (step := await agent.next_step(plan_id)) is not None:
            await agent.submit(step.id, "what I found", data={"sources": 3})
"""

from __future__ import annotations

from typing import Any

from .connection import connect, raise_for
from .generated.client import FlightdeckGraphQL
from .generated.enums import StepType
from .generated.fragments import PlanStepFields
from .generated.input_types import CreateResearchPlanInput, StepInput, SubmitStepResultInput


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
        assert payload.plan is not None
        return payload.plan.id

    async def next_step(self, plan_id: str) -> PlanStepFields | None:
        """Start the next pending step and return it; None when there is nothing more to start."""
        payload = (await self.client.start_next_step(plan_id, self.session_id)).start_next_step
        raise_for(payload.user_errors)
        return (
            payload.step if payload.step is not None and payload.step.status.value == "IN_PROGRESS" else None
        )

    async def submit(
        self, step_id: str, summary: str, data: dict[str, Any] | None = None, confidence: float | None = None
    ) -> None:
        result = SubmitStepResultInput(
            stepId=step_id, resultSummary=summary, resultData=data, confidence=confidence
        )
        payload = (await self.client.submit_step_result(result)).submit_step_result
        raise_for(payload.user_errors)

    async def ask_for_review(self, step_id: str, summary: str, questions: list[str] | None = None) -> None:
        """Pause the step for a person (the plan AWAITING_REVIEW) until they decide."""
        payload = (await self.client.request_user_review(step_id, summary, questions)).request_user_review
        raise_for(payload.user_errors)

    async def resume(self, plan_id: str, session_id: str) -> bool:
        """Take the plan over in a new session; True when it was last driven by another one."""
        self.session_id = session_id
        payload = (await self.client.resume_session(plan_id, session_id)).resume_session
        raise_for(payload.user_errors)
        return bool(payload.resumed)
