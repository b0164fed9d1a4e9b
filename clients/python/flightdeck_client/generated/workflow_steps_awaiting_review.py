from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import StepFields


class WorkflowStepsAwaitingReview(BaseModel):
    workflow_steps_awaiting_review: "WorkflowStepsAwaitingReviewWorkflowStepsAwaitingReview" = Field(
        alias="workflowStepsAwaitingReview"
    )


class WorkflowStepsAwaitingReviewWorkflowStepsAwaitingReview(BaseModel):
    edges: list["WorkflowStepsAwaitingReviewWorkflowStepsAwaitingReviewEdges"]
    page_info: "WorkflowStepsAwaitingReviewWorkflowStepsAwaitingReviewPageInfo" = Field(
        alias="pageInfo"
    )
    total_count: int = Field(alias="totalCount")


class WorkflowStepsAwaitingReviewWorkflowStepsAwaitingReviewEdges(BaseModel):
    cursor: str
    node: "WorkflowStepsAwaitingReviewWorkflowStepsAwaitingReviewEdgesNode"


WorkflowStepsAwaitingReviewWorkflowStepsAwaitingReviewEdgesNode = StepFields


class WorkflowStepsAwaitingReviewWorkflowStepsAwaitingReviewPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


WorkflowStepsAwaitingReview.model_rebuild()
WorkflowStepsAwaitingReviewWorkflowStepsAwaitingReview.model_rebuild()
WorkflowStepsAwaitingReviewWorkflowStepsAwaitingReviewEdges.model_rebuild()
