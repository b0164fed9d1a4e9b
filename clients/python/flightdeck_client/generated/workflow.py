from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import WorkflowOutcome, WorkflowStatus


class Workflow(BaseModel):
    workflow: Optional["WorkflowWorkflow"]


class WorkflowWorkflow(BaseModel):
    id: str
    name: str
    status: WorkflowStatus
    outcome: Optional[WorkflowOutcome]
    failure_reason: Optional[str] = Field(alias="failureReason")


Workflow.model_rebuild()
