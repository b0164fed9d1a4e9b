from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import WorkflowStatus
from .fragments import Problems


class RerunWorkflow(BaseModel):
    rerun_workflow: "RerunWorkflowRerunWorkflow" = Field(alias="rerunWorkflow")


class RerunWorkflowRerunWorkflow(BaseModel):
    workflow: Optional["RerunWorkflowRerunWorkflowWorkflow"]
    user_errors: list["RerunWorkflowRerunWorkflowUserErrors"] = Field(
        alias="userErrors"
    )


class RerunWorkflowRerunWorkflowWorkflow(BaseModel):
    id: str
    status: WorkflowStatus
    rerun_of_id: Optional[str] = Field(alias="rerunOfId")


RerunWorkflowRerunWorkflowUserErrors = Problems
RerunWorkflow.model_rebuild()
RerunWorkflowRerunWorkflow.model_rebuild()
