from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import NextStepOutcome
from .fragments import PlanStepFields, Problems, ResearchPlanFields


class StartNextStep(BaseModel):
    start_next_step: "StartNextStepStartNextStep" = Field(alias="startNextStep")


class StartNextStepStartNextStep(BaseModel):
    outcome: Optional[NextStepOutcome]
    plan: Optional["StartNextStepStartNextStepPlan"]
    step: Optional["StartNextStepStartNextStepStep"]
    in_progress_count: Optional[int] = Field(alias="inProgressCount")
    failed_count: Optional[int] = Field(alias="failedCount")
    output_media_type: Optional[str] = Field(alias="outputMediaType")
    output_formatting_instructions: Optional[str] = Field(
        alias="outputFormattingInstructions"
    )
    plan_formatting_notes: Optional[str] = Field(alias="planFormattingNotes")
    step_formatting_notes: list["StartNextStepStartNextStepStepFormattingNotes"] = (
        Field(alias="stepFormattingNotes")
    )
    user_errors: list["StartNextStepStartNextStepUserErrors"] = Field(
        alias="userErrors"
    )


StartNextStepStartNextStepPlan = ResearchPlanFields
StartNextStepStartNextStepStep = PlanStepFields


class StartNextStepStartNextStepStepFormattingNotes(BaseModel):
    step_id: str = Field(alias="stepId")
    order: int
    notes: str


StartNextStepStartNextStepUserErrors = Problems
StartNextStep.model_rebuild()
StartNextStepStartNextStep.model_rebuild()
