from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import NextStepOutcome, PlanStatus
from .fragments import PlanStepFields, Problems


class StartNextStep(BaseModel):
    start_next_step: "StartNextStepStartNextStep" = Field(alias="startNextStep")


class StartNextStepStartNextStep(BaseModel):
    outcome: Optional[NextStepOutcome]
    plan: Optional["StartNextStepStartNextStepPlan"]
    step: Optional["StartNextStepStartNextStepStep"]
    output_formatting_instructions: Optional[str] = Field(
        alias="outputFormattingInstructions"
    )
    user_errors: list["StartNextStepStartNextStepUserErrors"] = Field(
        alias="userErrors"
    )


class StartNextStepStartNextStepPlan(BaseModel):
    id: str
    status: PlanStatus


StartNextStepStartNextStepStep = PlanStepFields
StartNextStepStartNextStepUserErrors = Problems
StartNextStep.model_rebuild()
StartNextStepStartNextStep.model_rebuild()
