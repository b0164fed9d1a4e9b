from datetime import datetime
from typing import Any, Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import (
    StepStatus,
    StepType,
    UserErrorCode,
    WorkflowCompensationStatus,
    WorkflowErrorCategory,
    WorkflowStepStatus,
)


class CompensationFields(BaseModel):
    id: str
    workflow_id: str = Field(alias="workflowId")
    step_name: str = Field(alias="stepName")
    position: int
    action: str
    agent: str
    status: WorkflowCompensationStatus


class PlanStepFields(BaseModel):
    id: str
    plan_id: str = Field(alias="planId")
    order: int
    step_type: StepType = Field(alias="stepType")
    title: str
    instructions: str
    status: StepStatus
    result_summary: Optional[str] = Field(alias="resultSummary")
    result_data: Optional[Any] = Field(alias="resultData")


class Problems(BaseModel):
    code: UserErrorCode
    message: str
    field: list[str]


class StepFields(BaseModel):
    id: str
    workflow_id: str = Field(alias="workflowId")
    name: str
    status: WorkflowStepStatus
    agent: Optional[str]
    attempt: int
    claimed_by: Optional[str] = Field(alias="claimedBy")
    timeout_at: Optional[datetime] = Field(alias="timeoutAt")
    heartbeat_timeout_seconds: Optional[float] = Field(alias="heartbeatTimeoutSeconds")
    next_attempt_at: Optional[datetime] = Field(alias="nextAttemptAt")
    output: Optional[Any]
    progress: Optional[Any]
    last_error: Optional[str] = Field(alias="lastError")
    last_error_category: Optional[WorkflowErrorCategory] = Field(
        alias="lastErrorCategory"
    )


CompensationFields.model_rebuild()
PlanStepFields.model_rebuild()
Problems.model_rebuild()
StepFields.model_rebuild()
