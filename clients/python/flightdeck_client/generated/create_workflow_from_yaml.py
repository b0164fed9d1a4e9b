from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import WorkflowStatus
from .fragments import Problems


class CreateWorkflowFromYaml(BaseModel):
    create_workflow_from_yaml: "CreateWorkflowFromYamlCreateWorkflowFromYaml" = Field(
        alias="createWorkflowFromYaml"
    )


class CreateWorkflowFromYamlCreateWorkflowFromYaml(BaseModel):
    workflow: Optional["CreateWorkflowFromYamlCreateWorkflowFromYamlWorkflow"]
    user_errors: list["CreateWorkflowFromYamlCreateWorkflowFromYamlUserErrors"] = Field(
        alias="userErrors"
    )


class CreateWorkflowFromYamlCreateWorkflowFromYamlWorkflow(BaseModel):
    id: str
    name: str
    status: WorkflowStatus


CreateWorkflowFromYamlCreateWorkflowFromYamlUserErrors = Problems
CreateWorkflowFromYaml.model_rebuild()
CreateWorkflowFromYamlCreateWorkflowFromYaml.model_rebuild()
