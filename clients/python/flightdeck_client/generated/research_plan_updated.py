from pydantic import Field

from .base_model import BaseModel
from .fragments import ResearchPlanFields


class ResearchPlanUpdated(BaseModel):
    research_plan_updated: "ResearchPlanUpdatedResearchPlanUpdated" = Field(
        alias="researchPlanUpdated"
    )


ResearchPlanUpdatedResearchPlanUpdated = ResearchPlanFields
ResearchPlanUpdated.model_rebuild()
