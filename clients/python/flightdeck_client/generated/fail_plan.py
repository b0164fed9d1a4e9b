from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems, ResearchPlanFields


class FailPlan(BaseModel):
    fail_plan: "FailPlanFailPlan" = Field(alias="failPlan")


class FailPlanFailPlan(BaseModel):
    plan: Optional["FailPlanFailPlanPlan"]
    user_errors: list["FailPlanFailPlanUserErrors"] = Field(alias="userErrors")


FailPlanFailPlanPlan = ResearchPlanFields
FailPlanFailPlanUserErrors = Problems
FailPlan.model_rebuild()
FailPlanFailPlan.model_rebuild()
