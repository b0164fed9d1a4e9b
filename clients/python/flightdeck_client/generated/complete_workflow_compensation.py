from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import CompensationFields, Problems


class CompleteWorkflowCompensation(BaseModel):
    complete_workflow_compensation: "CompleteWorkflowCompensationCompleteWorkflowCompensation" = Field(
        alias="completeWorkflowCompensation"
    )


class CompleteWorkflowCompensationCompleteWorkflowCompensation(BaseModel):
    compensation: Optional[
        "CompleteWorkflowCompensationCompleteWorkflowCompensationCompensation"
    ]
    user_errors: list[
        "CompleteWorkflowCompensationCompleteWorkflowCompensationUserErrors"
    ] = Field(alias="userErrors")


CompleteWorkflowCompensationCompleteWorkflowCompensationCompensation = (
    CompensationFields
)
CompleteWorkflowCompensationCompleteWorkflowCompensationUserErrors = Problems
CompleteWorkflowCompensation.model_rebuild()
CompleteWorkflowCompensationCompleteWorkflowCompensation.model_rebuild()
