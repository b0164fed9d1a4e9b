from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import PlanStepFields, ResearchPlanFields


class StepContext(BaseModel):
    step_context: Optional["StepContextStepContext"] = Field(alias="stepContext")


class StepContextStepContext(BaseModel):
    plan: "StepContextStepContextPlan"
    step: "StepContextStepContextStep"
    prior_steps: list["StepContextStepContextPriorSteps"] = Field(alias="priorSteps")


StepContextStepContextPlan = ResearchPlanFields
StepContextStepContextStep = PlanStepFields
StepContextStepContextPriorSteps = PlanStepFields
StepContext.model_rebuild()
StepContextStepContext.model_rebuild()
