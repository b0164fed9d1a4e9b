from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import PlanStatus
from .fragments import PlanStepFields, Problems


class RequestUserReview(BaseModel):
    request_user_review: "RequestUserReviewRequestUserReview" = Field(
        alias="requestUserReview"
    )


class RequestUserReviewRequestUserReview(BaseModel):
    plan: Optional["RequestUserReviewRequestUserReviewPlan"]
    step: Optional["RequestUserReviewRequestUserReviewStep"]
    user_errors: list["RequestUserReviewRequestUserReviewUserErrors"] = Field(
        alias="userErrors"
    )


class RequestUserReviewRequestUserReviewPlan(BaseModel):
    id: str
    status: PlanStatus


RequestUserReviewRequestUserReviewStep = PlanStepFields
RequestUserReviewRequestUserReviewUserErrors = Problems
RequestUserReview.model_rebuild()
RequestUserReviewRequestUserReview.model_rebuild()
