from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import PlanStatus
from .fragments import Problems


class CreateResearchPlan(BaseModel):
    create_research_plan: "CreateResearchPlanCreateResearchPlan" = Field(
        alias="createResearchPlan"
    )


class CreateResearchPlanCreateResearchPlan(BaseModel):
    plan: Optional["CreateResearchPlanCreateResearchPlanPlan"]
    step_ids: list[str] = Field(alias="stepIds")
    user_errors: list["CreateResearchPlanCreateResearchPlanUserErrors"] = Field(
        alias="userErrors"
    )


class CreateResearchPlanCreateResearchPlanPlan(BaseModel):
    id: str
    status: PlanStatus


CreateResearchPlanCreateResearchPlanUserErrors = Problems
CreateResearchPlan.model_rebuild()
CreateResearchPlanCreateResearchPlan.model_rebuild()
