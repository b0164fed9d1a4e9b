from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import CompensationFields, StepFields, WorkflowFields


class WorkflowDetail(BaseModel):
    workflow: Optional["WorkflowDetailWorkflow"]


class WorkflowDetailWorkflow(WorkflowFields):
    steps: "WorkflowDetailWorkflowSteps"
    compensations: list["WorkflowDetailWorkflowCompensations"]


class WorkflowDetailWorkflowSteps(BaseModel):
    edges: list["WorkflowDetailWorkflowStepsEdges"]
    page_info: "WorkflowDetailWorkflowStepsPageInfo" = Field(alias="pageInfo")


class WorkflowDetailWorkflowStepsEdges(BaseModel):
    node: "WorkflowDetailWorkflowStepsEdgesNode"


WorkflowDetailWorkflowStepsEdgesNode = StepFields


class WorkflowDetailWorkflowStepsPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


WorkflowDetailWorkflowCompensations = CompensationFields
WorkflowDetail.model_rebuild()
WorkflowDetailWorkflow.model_rebuild()
WorkflowDetailWorkflowSteps.model_rebuild()
WorkflowDetailWorkflowStepsEdges.model_rebuild()
