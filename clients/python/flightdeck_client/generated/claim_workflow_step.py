from datetime import datetime
from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import ClaimOutcome, ClaimWaitReason, WorkflowStatus
from .fragments import CompensationFields, Problems, StepFields


class ClaimWorkflowStep(BaseModel):
    claim_workflow_step: "ClaimWorkflowStepClaimWorkflowStep" = Field(
        alias="claimWorkflowStep"
    )


class ClaimWorkflowStepClaimWorkflowStep(BaseModel):
    outcome: Optional[ClaimOutcome]
    reason: Optional[ClaimWaitReason]
    retry_at: Optional[datetime] = Field(alias="retryAt")
    workflow: Optional["ClaimWorkflowStepClaimWorkflowStepWorkflow"]
    step: Optional["ClaimWorkflowStepClaimWorkflowStepStep"]
    compensation: Optional["ClaimWorkflowStepClaimWorkflowStepCompensation"]
    user_errors: list["ClaimWorkflowStepClaimWorkflowStepUserErrors"] = Field(
        alias="userErrors"
    )


class ClaimWorkflowStepClaimWorkflowStepWorkflow(BaseModel):
    id: str
    status: WorkflowStatus


ClaimWorkflowStepClaimWorkflowStepStep = StepFields
ClaimWorkflowStepClaimWorkflowStepCompensation = CompensationFields
ClaimWorkflowStepClaimWorkflowStepUserErrors = Problems
ClaimWorkflowStep.model_rebuild()
ClaimWorkflowStepClaimWorkflowStep.model_rebuild()
