from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import (
    BranchingConditionFields,
    PlanStepFields,
    Problems,
    ResearchPlanFields,
)


class SubmitStepResult(BaseModel):
    submit_step_result: "SubmitStepResultSubmitStepResult" = Field(
        alias="submitStepResult"
    )


class SubmitStepResultSubmitStepResult(BaseModel):
    plan: Optional["SubmitStepResultSubmitStepResultPlan"]
    step: Optional["SubmitStepResultSubmitStepResultStep"]
    branch_fired: Optional["SubmitStepResultSubmitStepResultBranchFired"] = Field(
        alias="branchFired"
    )
    skipped_step_ids: list[str] = Field(alias="skippedStepIds")
    user_errors: list["SubmitStepResultSubmitStepResultUserErrors"] = Field(
        alias="userErrors"
    )


SubmitStepResultSubmitStepResultPlan = ResearchPlanFields
SubmitStepResultSubmitStepResultStep = PlanStepFields
SubmitStepResultSubmitStepResultBranchFired = BranchingConditionFields
SubmitStepResultSubmitStepResultUserErrors = Problems
SubmitStepResult.model_rebuild()
SubmitStepResultSubmitStepResult.model_rebuild()
