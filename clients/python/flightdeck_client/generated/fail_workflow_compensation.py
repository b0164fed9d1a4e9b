from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import CompensationFields, Problems


class FailWorkflowCompensation(BaseModel):
    fail_workflow_compensation: "FailWorkflowCompensationFailWorkflowCompensation" = (
        Field(alias="failWorkflowCompensation")
    )


class FailWorkflowCompensationFailWorkflowCompensation(BaseModel):
    compensation: Optional[
        "FailWorkflowCompensationFailWorkflowCompensationCompensation"
    ]
    user_errors: list["FailWorkflowCompensationFailWorkflowCompensationUserErrors"] = (
        Field(alias="userErrors")
    )


FailWorkflowCompensationFailWorkflowCompensationCompensation = CompensationFields
FailWorkflowCompensationFailWorkflowCompensationUserErrors = Problems
FailWorkflowCompensation.model_rebuild()
FailWorkflowCompensationFailWorkflowCompensation.model_rebuild()
