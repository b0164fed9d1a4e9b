from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import PlanStepFields, Problems, ResearchPlanFields


class SubmitUserDecision(BaseModel):
    submit_user_decision: "SubmitUserDecisionSubmitUserDecision" = Field(
        alias="submitUserDecision"
    )


class SubmitUserDecisionSubmitUserDecision(BaseModel):
    plan: Optional["SubmitUserDecisionSubmitUserDecisionPlan"]
    step: Optional["SubmitUserDecisionSubmitUserDecisionStep"]
    user_errors: list["SubmitUserDecisionSubmitUserDecisionUserErrors"] = Field(
        alias="userErrors"
    )


SubmitUserDecisionSubmitUserDecisionPlan = ResearchPlanFields
SubmitUserDecisionSubmitUserDecisionStep = PlanStepFields
SubmitUserDecisionSubmitUserDecisionUserErrors = Problems
SubmitUserDecision.model_rebuild()
SubmitUserDecisionSubmitUserDecision.model_rebuild()
