from datetime import datetime
from typing import Any, Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import (
    AssetStatus,
    BranchAction,
    BranchOperator,
    ClaimOutcome,
    ClaimWaitReason,
    DecisionKind,
    DecisionOutcome,
    DecisionScope,
    DecisionStatus,
    HopStatus,
    MissionStatus,
    PlanStatus,
    SkillExecutionStatus,
    StepStatus,
    StepType,
    ToolStepStatus,
    UserErrorCode,
    WorkflowCompensationStatus,
    WorkflowErrorCategory,
    WorkflowFailurePolicy,
    WorkflowOutcome,
    WorkflowStatus,
    WorkflowStepStatus,
)


class AssetFields(BaseModel):
    id: str
    mission_id: str = Field(alias="missionId")
    name: str
    description: str
    media_type: Optional[str] = Field(alias="mediaType")
    content: Optional[str]
    status: AssetStatus
    status_reason: Optional[str] = Field(alias="statusReason")
    failed_from: Optional[AssetStatus] = Field(alias="failedFrom")
    expires_at: Optional[datetime] = Field(alias="expiresAt")
    created_at: datetime = Field(alias="createdAt")
    updated_at: datetime = Field(alias="updatedAt")
    ready_at: Optional[datetime] = Field(alias="readyAt")
    expires_in_seconds: Optional[float] = Field(alias="expiresInSeconds")


class BranchingConditionFields(BaseModel):
    id: str
    after_step_id: str = Field(alias="afterStepId")
    field: str
    op: BranchOperator
    value: Optional[Any]
    action: BranchAction
    target_step_id: Optional[str] = Field(alias="targetStepId")


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


class DecisionFields(BaseModel):
    id: str
    kind: DecisionKind
    status: DecisionStatus
    subject_type: str = Field(alias="subjectType")
    subject_id: str = Field(alias="subjectId")
    root_type: str = Field(alias="rootType")
    root_id: str = Field(alias="rootId")
    assignee: Optional[str]
    default_outcome: Optional[DecisionOutcome] = Field(alias="defaultOutcome")
    deadline_at: Optional[datetime] = Field(alias="deadlineAt")
    escalate_at: Optional[datetime] = Field(alias="escalateAt")
    escalation_role: Optional[str] = Field(alias="escalationRole")
    escalated_at: Optional[datetime] = Field(alias="escalatedAt")
    outcome: Optional[str]
    status_reason: Optional[str] = Field(alias="statusReason")
    created_at: datetime = Field(alias="createdAt")
    closed_at: Optional[datetime] = Field(alias="closedAt")


class DecisionPolicyFields(BaseModel):
    scope: DecisionScope
    scope_id: str = Field(alias="scopeId")
    kind: Optional[DecisionKind]
    deadline_seconds: Optional[float] = Field(alias="deadlineSeconds")
    default_outcome: Optional[DecisionOutcome] = Field(alias="defaultOutcome")
    assignee: Optional[str]
    escalate_after_seconds: Optional[float] = Field(alias="escalateAfterSeconds")
    escalation_role: Optional[str] = Field(alias="escalationRole")
    updated_at: datetime = Field(alias="updatedAt")


class EventFields(BaseModel):
    seq: int
    kind: str
    entity_type: str = Field(alias="entityType")
    entity_id: str = Field(alias="entityId")
    root_type: str = Field(alias="rootType")
    root_id: str = Field(alias="rootId")
    from_state: Optional[str] = Field(alias="fromState")
    to_state: Optional[str] = Field(alias="toState")
    actor: str
    data: Any
    created_at: datetime = Field(alias="createdAt")


class HopFields(BaseModel):
    id: str
    mission_id: str = Field(alias="missionId")
    sequence: int
    name: str
    plan: str
    is_final: bool = Field(alias="isFinal")
    status: HopStatus
    status_reason: Optional[str] = Field(alias="statusReason")
    failed_from: Optional[HopStatus] = Field(alias="failedFrom")
    created_at: datetime = Field(alias="createdAt")
    updated_at: datetime = Field(alias="updatedAt")
    started_at: Optional[datetime] = Field(alias="startedAt")
    completed_at: Optional[datetime] = Field(alias="completedAt")


class MissionFields(BaseModel):
    id: str
    title: str
    goal: str
    status: MissionStatus
    status_reason: Optional[str] = Field(alias="statusReason")
    created_at: datetime = Field(alias="createdAt")
    updated_at: datetime = Field(alias="updatedAt")
    completed_at: Optional[datetime] = Field(alias="completedAt")


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
    confidence: Optional[float]
    step_execution_report: Optional[str] = Field(alias="stepExecutionReport")
    output_formatting_notes: Optional[str] = Field(alias="outputFormattingNotes")
    failure_reason: Optional[str] = Field(alias="failureReason")
    review_summary: Optional[str] = Field(alias="reviewSummary")
    review_questions: Optional[list[str]] = Field(alias="reviewQuestions")
    started_at: Optional[datetime] = Field(alias="startedAt")
    completed_at: Optional[datetime] = Field(alias="completedAt")
    created_at: datetime = Field(alias="createdAt")
    updated_at: datetime = Field(alias="updatedAt")


class ResearchOutputFields(BaseModel):
    id: str
    plan_id: str = Field(alias="planId")
    title: str
    media_type: str = Field(alias="mediaType")
    content: str
    created_at: datetime = Field(alias="createdAt")


class ResearchPlanFields(BaseModel):
    id: str
    title: str
    research_question: str = Field(alias="researchQuestion")
    status: PlanStatus
    output_formatting_notes: Optional[str] = Field(alias="outputFormattingNotes")
    stall_threshold_seconds: Optional[float] = Field(alias="stallThresholdSeconds")
    session_id: Optional[str] = Field(alias="sessionId")
    failure_reason: Optional[str] = Field(alias="failureReason")
    created_at: datetime = Field(alias="createdAt")
    updated_at: datetime = Field(alias="updatedAt")
    completed_at: Optional[datetime] = Field(alias="completedAt")
    progress_percent: float = Field(alias="progressPercent")


class SkillExecutionFields(BaseModel):
    id: str
    session_id: str = Field(alias="sessionId")
    skill_name: str = Field(alias="skillName")
    status: SkillExecutionStatus
    plan_id: Optional[str] = Field(alias="planId")
    output_media_type: Optional[str] = Field(alias="outputMediaType")
    output_formatting_instructions: Optional[str] = Field(
        alias="outputFormattingInstructions"
    )
    result_summary: Optional[str] = Field(alias="resultSummary")
    started_at: datetime = Field(alias="startedAt")
    completed_at: Optional[datetime] = Field(alias="completedAt")


class ToolFields(BaseModel):
    id: str
    name: str
    description: str
    parameter_schema: Any = Field(alias="parameterSchema")
    created_at: datetime = Field(alias="createdAt")
    updated_at: datetime = Field(alias="updatedAt")


class ToolStepFields(BaseModel):
    id: str
    hop_id: str = Field(alias="hopId")
    mission_id: str = Field(alias="missionId")
    position: int
    name: str
    description: str
    tool_name: Optional[str] = Field(alias="toolName")
    parameters: Optional[Any]
    result: Optional[Any]
    status: ToolStepStatus
    status_reason: Optional[str] = Field(alias="statusReason")
    failed_from: Optional[ToolStepStatus] = Field(alias="failedFrom")
    created_at: datetime = Field(alias="createdAt")
    updated_at: datetime = Field(alias="updatedAt")
    started_at: Optional[datetime] = Field(alias="startedAt")
    completed_at: Optional[datetime] = Field(alias="completedAt")


class WorkflowFields(BaseModel):
    id: str
    name: str
    status: WorkflowStatus
    outcome: Optional[WorkflowOutcome]
    failure_policy: WorkflowFailurePolicy = Field(alias="failurePolicy")
    timeout: Optional[str]
    timeout_seconds: Optional[float] = Field(alias="timeoutSeconds")
    timeout_at: Optional[datetime] = Field(alias="timeoutAt")
    failure_reason: Optional[str] = Field(alias="failureReason")
    created_at: datetime = Field(alias="createdAt")
    updated_at: datetime = Field(alias="updatedAt")
    queued_at: Optional[datetime] = Field(alias="queuedAt")
    started_at: Optional[datetime] = Field(alias="startedAt")
    completed_at: Optional[datetime] = Field(alias="completedAt")
    definition: Any
    definition_yaml: str = Field(alias="definitionYaml")


AssetFields.model_rebuild()
BranchingConditionFields.model_rebuild()
CompensationFields.model_rebuild()
Problems.model_rebuild()
StepFields.model_rebuild()
ClaimedWork.model_rebuild()
CompletionResults.model_rebuild()
DecisionFields.model_rebuild()
DecisionPolicyFields.model_rebuild()
EventFields.model_rebuild()
HopFields.model_rebuild()
MissionFields.model_rebuild()
PlanStepFields.model_rebuild()
ResearchOutputFields.model_rebuild()
ResearchPlanFields.model_rebuild()
SkillExecutionFields.model_rebuild()
ToolFields.model_rebuild()
ToolStepFields.model_rebuild()
WorkflowFields.model_rebuild()
