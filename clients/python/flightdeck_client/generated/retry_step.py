from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import PlanStepFields, Problems, ResearchPlanFields


class RetryStep(BaseModel):
    retry_step: "RetryStepRetryStep" = Field(alias="retryStep")


class RetryStepRetryStep(BaseModel):
    plan: Optional["RetryStepRetryStepPlan"]
    step: Optional["RetryStepRetryStepStep"]
    user_errors: list["RetryStepRetryStepUserErrors"] = Field(alias="userErrors")


RetryStepRetryStepPlan = ResearchPlanFields
RetryStepRetryStepStep = PlanStepFields
RetryStepRetryStepUserErrors = Problems
RetryStep.model_rebuild()
RetryStepRetryStep.model_rebuild()
