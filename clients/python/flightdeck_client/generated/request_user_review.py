from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import PlanStepFields, Problems, ResearchPlanFields


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


RequestUserReviewRequestUserReviewPlan = ResearchPlanFields
RequestUserReviewRequestUserReviewStep = PlanStepFields
RequestUserReviewRequestUserReviewUserErrors = Problems
RequestUserReview.model_rebuild()
RequestUserReviewRequestUserReview.model_rebuild()
