from pydantic import Field

from .base_model import BaseModel


class WorkAvailable(BaseModel):
    work_available: "WorkAvailableWorkAvailable" = Field(alias="workAvailable")


class WorkAvailableWorkAvailable(BaseModel):
    seq: int
    workflow_id: str = Field(alias="workflowId")
    reason: str


WorkAvailable.model_rebuild()
