from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import PlanStepFields, ResearchPlanFields


class ResearchContext(BaseModel):
    research_context: Optional["ResearchContextResearchContext"] = Field(
        alias="researchContext"
    )


class ResearchContextResearchContext(BaseModel):
    plan: "ResearchContextResearchContextPlan"
    steps: list["ResearchContextResearchContextSteps"]
    prior_results: list["ResearchContextResearchContextPriorResults"] = Field(
        alias="priorResults"
    )


ResearchContextResearchContextPlan = ResearchPlanFields
ResearchContextResearchContextSteps = PlanStepFields
ResearchContextResearchContextPriorResults = PlanStepFields
ResearchContext.model_rebuild()
ResearchContextResearchContext.model_rebuild()
