from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import StepFields


class WorkflowStep(BaseModel):
    workflow_step: Optional["WorkflowStepWorkflowStep"] = Field(alias="workflowStep")


WorkflowStepWorkflowStep = StepFields
WorkflowStep.model_rebuild()
