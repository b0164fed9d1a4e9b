from pydantic import Field

from .base_model import BaseModel
from .fragments import WorkflowFields


class WorkflowUpdated(BaseModel):
    workflow_updated: "WorkflowUpdatedWorkflowUpdated" = Field(alias="workflowUpdated")


WorkflowUpdatedWorkflowUpdated = WorkflowFields
WorkflowUpdated.model_rebuild()
