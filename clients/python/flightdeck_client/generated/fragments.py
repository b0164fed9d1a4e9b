from datetime import datetime
from typing import Any, Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import (
    ClaimOutcome,
    ClaimWaitReason,
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


class ClaimedWork(BaseModel):
    completed: list["ClaimedWorkCompleted"]
    outcome: Optional[ClaimOutcome]
    reason: Optional[ClaimWaitReason]
    retry_at: Optional[datetime] = Field(alias="retryAt")
    steps: list["ClaimedWorkSteps"]
    compensation: Optional["ClaimedWorkCompensation"]
    user_errors: list["ClaimedWorkUserErrors"] = Field(alias="userErrors")


class ClaimedWorkCompleted(BaseModel):
    step: Optional["ClaimedWorkCompletedStep"]
    user_errors: list["ClaimedWorkCompletedUserErrors"] = Field(alias="userErrors")


class ClaimedWorkCompletedStep(BaseModel):
    id: str
    status: WorkflowStepStatus


class ClaimedWorkCompletedUserErrors(Problems):
    pass


class ClaimedWorkSteps(StepFields):
    pass


class ClaimedWorkCompensation(CompensationFields):
    pass


class ClaimedWorkUserErrors(Problems):
    pass


class CompletionResults(BaseModel):
    results: list["CompletionResultsResults"]
    user_errors: list["CompletionResultsUserErrors"] = Field(alias="userErrors")


class CompletionResultsResults(BaseModel):
    step: Optional["CompletionResultsResultsStep"]
    user_errors: list["CompletionResultsResultsUserErrors"] = Field(alias="userErrors")


class CompletionResultsResultsStep(BaseModel):
    id: str
    status: WorkflowStepStatus


class CompletionResultsResultsUserErrors(Problems):
    pass


class CompletionResultsUserErrors(Problems):
    pass


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


CompensationFields.model_rebuild()
Problems.model_rebuild()
StepFields.model_rebuild()
ClaimedWork.model_rebuild()
CompletionResults.model_rebuild()
PlanStepFields.model_rebuild()
