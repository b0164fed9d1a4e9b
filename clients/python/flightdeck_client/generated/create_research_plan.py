from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems, ResearchPlanFields


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


CreateResearchPlanCreateResearchPlanPlan = ResearchPlanFields
CreateResearchPlanCreateResearchPlanUserErrors = Problems
CreateResearchPlan.model_rebuild()
CreateResearchPlanCreateResearchPlan.model_rebuild()
