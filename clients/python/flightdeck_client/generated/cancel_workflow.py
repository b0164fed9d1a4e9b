from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import WorkflowOutcome, WorkflowStatus
from .fragments import Problems


class CancelWorkflow(BaseModel):
    cancel_workflow: "CancelWorkflowCancelWorkflow" = Field(alias="cancelWorkflow")


class CancelWorkflowCancelWorkflow(BaseModel):
    workflow: Optional["CancelWorkflowCancelWorkflowWorkflow"]
    user_errors: list["CancelWorkflowCancelWorkflowUserErrors"] = Field(
        alias="userErrors"
    )


class CancelWorkflowCancelWorkflowWorkflow(BaseModel):
    id: str
    status: WorkflowStatus
    outcome: Optional[WorkflowOutcome]
    failure_reason: Optional[str] = Field(alias="failureReason")


CancelWorkflowCancelWorkflowUserErrors = Problems
CancelWorkflow.model_rebuild()
CancelWorkflowCancelWorkflow.model_rebuild()
