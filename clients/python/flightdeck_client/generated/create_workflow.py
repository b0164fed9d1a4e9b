from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems, WorkflowFields


class CreateWorkflow(BaseModel):
    create_workflow: "CreateWorkflowCreateWorkflow" = Field(alias="createWorkflow")


class CreateWorkflowCreateWorkflow(BaseModel):
    workflow: Optional["CreateWorkflowCreateWorkflowWorkflow"]
    warnings: list["CreateWorkflowCreateWorkflowWarnings"]
    user_errors: list["CreateWorkflowCreateWorkflowUserErrors"] = Field(
        alias="userErrors"
    )


CreateWorkflowCreateWorkflowWorkflow = WorkflowFields


class CreateWorkflowCreateWorkflowWarnings(BaseModel):
    code: str
    message: str
    field: list[str]


CreateWorkflowCreateWorkflowUserErrors = Problems
CreateWorkflow.model_rebuild()
CreateWorkflowCreateWorkflow.model_rebuild()
