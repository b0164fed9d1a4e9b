from datetime import datetime
from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import PlanStepFields, ResearchPlanFields


class ReviewInbox(BaseModel):
    review_inbox: "ReviewInboxReviewInbox" = Field(alias="reviewInbox")


class ReviewInboxReviewInbox(BaseModel):
    edges: list["ReviewInboxReviewInboxEdges"]
    page_info: "ReviewInboxReviewInboxPageInfo" = Field(alias="pageInfo")
    total_count: int = Field(alias="totalCount")


class ReviewInboxReviewInboxEdges(BaseModel):
    cursor: str
    node: "ReviewInboxReviewInboxEdgesNode"


class ReviewInboxReviewInboxEdgesNode(BaseModel):
    plan: "ReviewInboxReviewInboxEdgesNodePlan"
    step: "ReviewInboxReviewInboxEdgesNodeStep"
    waiting_since: datetime = Field(alias="waitingSince")


ReviewInboxReviewInboxEdgesNodePlan = ResearchPlanFields
ReviewInboxReviewInboxEdgesNodeStep = PlanStepFields


class ReviewInboxReviewInboxPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


ReviewInbox.model_rebuild()
ReviewInboxReviewInbox.model_rebuild()
ReviewInboxReviewInboxEdges.model_rebuild()
ReviewInboxReviewInboxEdgesNode.model_rebuild()
