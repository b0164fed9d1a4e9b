from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import WorkflowFields


class Workflows(BaseModel):
    workflows: "WorkflowsWorkflows"


class WorkflowsWorkflows(BaseModel):
    edges: list["WorkflowsWorkflowsEdges"]
    page_info: "WorkflowsWorkflowsPageInfo" = Field(alias="pageInfo")
    total_count: int = Field(alias="totalCount")


class WorkflowsWorkflowsEdges(BaseModel):
    cursor: str
    node: "WorkflowsWorkflowsEdgesNode"


WorkflowsWorkflowsEdgesNode = WorkflowFields


class WorkflowsWorkflowsPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


Workflows.model_rebuild()
WorkflowsWorkflows.model_rebuild()
WorkflowsWorkflowsEdges.model_rebuild()
