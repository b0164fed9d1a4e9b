from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import PlanStatus
from .fragments import PlanStepFields, Problems


class SubmitStepResult(BaseModel):
    submit_step_result: "SubmitStepResultSubmitStepResult" = Field(
        alias="submitStepResult"
    )


class SubmitStepResultSubmitStepResult(BaseModel):
    plan: Optional["SubmitStepResultSubmitStepResultPlan"]
    step: Optional["SubmitStepResultSubmitStepResultStep"]
    skipped_step_ids: list[str] = Field(alias="skippedStepIds")
    user_errors: list["SubmitStepResultSubmitStepResultUserErrors"] = Field(
        alias="userErrors"
    )


class SubmitStepResultSubmitStepResultPlan(BaseModel):
    id: str
    status: PlanStatus


SubmitStepResultSubmitStepResultStep = PlanStepFields
SubmitStepResultSubmitStepResultUserErrors = Problems
SubmitStepResult.model_rebuild()
SubmitStepResultSubmitStepResult.model_rebuild()
