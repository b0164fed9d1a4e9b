from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import WorkflowStatus
from .fragments import Problems


class StartWorkflow(BaseModel):
    start_workflow: "StartWorkflowStartWorkflow" = Field(alias="startWorkflow")


class StartWorkflowStartWorkflow(BaseModel):
    workflow: Optional["StartWorkflowStartWorkflowWorkflow"]
    user_errors: list["StartWorkflowStartWorkflowUserErrors"] = Field(
        alias="userErrors"
    )


class StartWorkflowStartWorkflowWorkflow(BaseModel):
    id: str
    status: WorkflowStatus


StartWorkflowStartWorkflowUserErrors = Problems
StartWorkflow.model_rebuild()
StartWorkflowStartWorkflow.model_rebuild()
