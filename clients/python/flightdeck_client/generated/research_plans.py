from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import ResearchPlanFields


class ResearchPlans(BaseModel):
    research_plans: "ResearchPlansResearchPlans" = Field(alias="researchPlans")


class ResearchPlansResearchPlans(BaseModel):
    edges: list["ResearchPlansResearchPlansEdges"]
    page_info: "ResearchPlansResearchPlansPageInfo" = Field(alias="pageInfo")
    total_count: int = Field(alias="totalCount")


class ResearchPlansResearchPlansEdges(BaseModel):
    cursor: str
    node: "ResearchPlansResearchPlansEdgesNode"


ResearchPlansResearchPlansEdgesNode = ResearchPlanFields


class ResearchPlansResearchPlansPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


ResearchPlans.model_rebuild()
ResearchPlansResearchPlans.model_rebuild()
ResearchPlansResearchPlansEdges.model_rebuild()
