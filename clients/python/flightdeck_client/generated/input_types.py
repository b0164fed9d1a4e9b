from datetime import datetime
from typing import Any, Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import (
    BackoffStrategy,
    BranchAction,
    BranchOperator,
    DecisionOutcome,
    ListOrderField,
    MissionReviewKind,
    OperationType,
    PlanModificationAction,
    ReviewKind,
    SortDirection,
    StepFailureAction,
    StepType,
    WebhookTopic,
    WorkflowErrorCategory,
    WorkflowFailurePolicy,
)


class BranchingConditionInput(BaseModel):
    """After step afterStepOrder completes: if `field op value` holds, then `action`. A step's conditions are checked in the order given; the first that matches fires."""

    after_step_order: int = Field(alias="afterStepOrder")
    "The 1-based order of the step whose result it reads (in this plan's steps)."
    field: str
    "confidence, resultSummary, or a key of the step's resultData."
    op: BranchOperator
    "The comparison; lt, lte, gt and gte need a number or string value."
    value: Any
    "What the field is compared with."
    action: BranchAction
    "What happens when it matches."
    target_step_order: Optional[int] = Field(alias="targetStepOrder", default=None)
    "skip_to only (required there): the order of a later step to skip forward to; fail takes none."


class CompensationInput(BaseModel):
    """How to undo a completed step, and the agent that does it (seed 002 §4.3)."""

    step: str
    "The step it undoes; one entry per step at most."
    action: str
    "What its agent does to undo the step; at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    agent: str
    "The only agent that may claim this compensation (at most 200 bytes)."


class CreateResearchPlanInput(BaseModel):
    """A new research plan with its steps (createResearchPlan)."""

    research_question: str = Field(alias="researchQuestion")
    "The question the plan answers; required, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    steps: list["StepInput"]
    "The steps in order: at least 1, at most FLIGHTDECK_MAX_STEPS (200 by default)."
    title: str = ""
    "Short name; optional, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    branching_conditions: list["BranchingConditionInput"] = Field(
        alias="branchingConditions", default_factory=lambda: []
    )
    "Rules checked when a step completes; none by default."
    output_formatting_notes: Optional[str] = Field(
        alias="outputFormattingNotes", default=None
    )
    "How the final output should be written; at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    session_id: Optional[str] = Field(alias="sessionId", default=None)
    "The agent session creating the plan; links the session's latest started skill execution to the plan. At most 200 bytes."
    stall_threshold_seconds: Optional[float] = Field(
        alias="stallThresholdSeconds", default=None
    )
    "This plan's stall threshold in seconds, in (0, 31536000] (one year); default: the server's FLIGHTDECK_STALL_THRESHOLD_SECONDS."


class CreateWebhookEndpointInput(BaseModel):
    """A new webhook endpoint."""

    url: str
    "http:// or https:// only, at most 2048 bytes; loopback, private and link-local addresses are refused unless the operator allows them (FLIGHTDECK_WEBHOOK_ALLOW_PRIVATE_TARGETS)."
    topics: list[WebhookTopic]
    "What it receives; at least one."
    description: Optional[str] = None
    "A note, at most 200 bytes."
    enabled: bool = True
    "False: registered, but nothing sent yet."


class CreateWorkflowInput(BaseModel):
    """A workflow definition (the seed's YAML spec as typed input)."""

    name: str
    "What the workflow is called; required, at most 200 bytes."
    steps: list["WorkflowStepInput"]
    "The DAG's steps: at least 1, at most FLIGHTDECK_MAX_STEPS (200 by default); more than 10 gives a warning."
    compensation: list["CompensationInput"] = Field(default_factory=lambda: [])
    "How to undo completed steps; steps without an entry are not undone."
    timeout: Optional[str] = None
    'The whole workflow\'s, running from the start of execution (queued time excluded). A duration like "30s", "5m" or "1h30m" (units ms, s, m, h, d), more than zero, at most 365d.'
    failure_policy: WorkflowFailurePolicy = Field(
        alias="failurePolicy", default=WorkflowFailurePolicy.ABORT
    )
    "What a failure does: for the workflow's timeout, and steps without onFailure."


class DecisionTermsInput(BaseModel):
    """A deadline with its default outcome (both or neither), an assignee, and an escalation (time and role, both or neither, before the deadline). Times are seconds after the decision opens."""

    deadline_seconds: Optional[float] = Field(alias="deadlineSeconds", default=None)
    "Seconds after the request when the default outcome applies."
    default_outcome: Optional[DecisionOutcome] = Field(
        alias="defaultOutcome", default=None
    )
    "Applied at the deadline, as the system, through the domain's own path."
    assignee: Optional[str] = None
    "Who should answer: user:<key name> or role:<agent|reviewer|viewer|admin>."
    escalate_after_seconds: Optional[float] = Field(
        alias="escalateAfterSeconds", default=None
    )
    "Seconds after the request when it is re-assigned to escalationRole."
    escalation_role: Optional[str] = Field(alias="escalationRole", default=None)
    "The role it is re-assigned to: agent, reviewer, viewer or admin."


class EventFilter(BaseModel):
    """Every given condition must hold."""

    root_id: Optional[str] = Field(alias="rootId", default=None)
    "Only events of this aggregate (a plan, mission, workflow)."
    root_type: Optional[str] = Field(alias="rootType", default=None)
    "Only events of this kind of aggregate: plan, skill_execution, mission, workflow, tool."
    entity_id: Optional[str] = Field(alias="entityId", default=None)
    "Only events about this object (a step, a hop, a plan, ...)."
    entity_type: Optional[str] = Field(alias="entityType", default=None)
    "Only events about this kind of object: plan, step, hop, ..."
    kinds: Optional[list[str]] = None
    'Only events of these kinds (past-tense names, at most 50), e.g. ["plan_stalled"].'
    since: Optional[datetime] = None
    "Committed at or after this time."
    until: Optional[datetime] = None
    "Committed before this time; must be later than `since`."


class ListFilter(BaseModel):
    """Every condition given must hold; none given lists everything."""

    since: Optional[datetime] = None
    "At or after this time: last changed when sorted by UPDATED_AT, created when sorted by CREATED_AT; not with the STATUS or DURATION order."
    until: Optional[datetime] = None
    "Before this time (the same time as `since`); must be later than `since`."
    search: Optional[str] = None
    "Case-insensitive substring of its text (a plan's title or question, a mission's title, a workflow's name): 3 to 200 bytes."


class ListOrderBy(BaseModel):
    """How to sort a list; a cursor is only valid in the order it came from."""

    field: ListOrderField = ListOrderField.CREATED_AT
    "The sort key."
    direction: SortDirection = SortDirection.DESC
    "Which way."


class McpToolCallFilter(BaseModel):
    """Every filter given must match; none given lists everything."""

    tool: Optional[str] = None
    "Exact tool name."
    actor: Optional[str] = None
    "Exact actor, e.g. `key:my-agent`."
    session_id: Optional[str] = Field(alias="sessionId", default=None)
    "Exact session."
    errors_only: bool = Field(alias="errorsOnly", default=False)
    "Only refused calls."
    since: Optional[datetime] = None
    "At or after this time."
    until: Optional[datetime] = None
    "Before this time."


class MissionReviewFilter(BaseModel):
    """Every condition given must hold; none given lists everything waiting."""

    kinds: Optional[list[MissionReviewKind]] = None
    "Only proposals of these kinds; omitted or empty: every kind."
    since: Optional[datetime] = None
    "Waiting since this time or later."
    until: Optional[datetime] = None
    "Waiting since before this time; must be later than `since`."
    search: Optional[str] = None
    "Case-insensitive substring of the mission's title: 3 to 200 bytes."


class ModifyPlanInput(BaseModel):
    """One of five actions; each uses the fields its description names."""

    plan_id: str = Field(alias="planId")
    "The plan: PLANNING or EXECUTING."
    action: PlanModificationAction
    "What to change."
    steps: list["StepInput"] = Field(default_factory=lambda: [])
    "add_steps: the new steps (at least 1; the plan stays within FLIGHTDECK_MAX_STEPS)."
    insert_after_order: Optional[int] = Field(alias="insertAfterOrder", default=None)
    "add_steps: insert after this order (0 = first); default appends."
    step_id: Optional[str] = Field(alias="stepId", default=None)
    "remove_step, update_step_instructions, fail_step: the step to change."
    step_ids: list[str] = Field(alias="stepIds", default_factory=lambda: [])
    "reorder_steps: every step id of the plan in the new order."
    instructions: Optional[str] = None
    "update_step_instructions: the new instructions, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    reason: Optional[str] = None
    "fail_step: why the step failed, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    rationale: Optional[str] = None
    "Why, recorded in the event log; at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."


class OperationLogFilter(BaseModel):
    """Every filter given must match; none given lists everything."""

    name: Optional[str] = None
    "Exact operation name."
    type_: Optional[OperationType] = Field(alias="type", default=None)
    "Only this kind of operation."
    actor: Optional[str] = None
    "Exact actor, e.g. `key:my-agent`."
    errors_only: bool = Field(alias="errorsOnly", default=False)
    "Only operations that failed."
    since: Optional[datetime] = None
    "At or after this time."
    until: Optional[datetime] = None
    "Before this time."


class ProposeAssetInput(BaseModel):
    """A new asset of a mission (proposeAsset); it starts PROPOSED."""

    mission_id: str = Field(alias="missionId")
    "The mission; it must not be finished."
    name: str
    "What the asset is called; required, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    description: str = ""
    "What it is; at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    media_type: Optional[str] = Field(alias="mediaType", default=None)
    "How its content will be written, e.g. text/csv; at most 200 bytes."
    ttl_seconds: Optional[float] = Field(alias="ttlSeconds", default=None)
    "Expires this many seconds after now, in (0, 315360000] (ten years); null: never."


class ProposeHopImplementationInput(BaseModel):
    """The tool steps that implement a hop (proposeHopImplementation)."""

    hop_id: str = Field(alias="hopId")
    "The hop: READY_FOR_IMPLEMENTATION."
    tool_steps: list["ToolStepInput"] = Field(alias="toolSteps")
    "The steps in order: at least 1, at most FLIGHTDECK_MAX_STEPS (200 by default)."


class ProposeHopInput(BaseModel):
    """A new hop plan for an APPROVED mission (proposeHop)."""

    mission_id: str = Field(alias="missionId")
    "The mission: APPROVED, with no hop under way."
    name: str
    "What the hop is called; required, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    plan: str
    "The high-level plan a person approves or rejects; required, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    is_final: bool = Field(alias="isFinal", default=False)
    "Completing this hop completes the mission."


class ProposeMissionInput(BaseModel):
    """A new mission (proposeMission); it starts PROPOSED."""

    title: str
    "What the mission is called; required, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    goal: str
    "What it should achieve; required, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."


class RegisterToolInput(BaseModel):
    """A tool and its parameter schema (registerTool)."""

    name: str
    "Unique within your tenant; registering a name again replaces it. At most 200 bytes."
    parameter_schema: Any = Field(alias="parameterSchema")
    "A JSON Schema (draft 2020-12 unless $schema says), at most FLIGHTDECK_MAX_RESULT_BYTES (1 MiB by default)."
    description: str = ""
    "What the tool does; at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."


class RetryPolicyInput(BaseModel):
    """Seed 002 §3.2. Delays are durations like 1s, 5m."""

    max_retries: int = Field(alias="maxRetries", default=3)
    "Retries after the first attempt, 0 to 100; 0 never retries."
    backoff: BackoffStrategy = BackoffStrategy.EXPONENTIAL
    "How the wait grows from one retry to the next."
    initial_delay: str = Field(alias="initialDelay", default="1s")
    'The wait before the first retry. A duration like "30s", "5m" or "1h30m" (units ms, s, m, h, d), more than zero, at most 365d.'
    max_delay: Optional[str] = Field(alias="maxDelay", default=None)
    'No wait is longer than this; null: up to 365d. A duration like "30s", "5m" or "1h30m" (units ms, s, m, h, d), more than zero, at most 365d.'
    retry_on: Optional[list[WorkflowErrorCategory]] = Field(
        alias="retryOn", default=None
    )
    "Categories to retry: transient always; agent_error and external may be added."


class ReviewDecisionInput(BaseModel):
    """One decision of decideReviews."""

    kind: ReviewKind
    "What is decided on."
    id: str
    "Its id (the step, mission, hop or asset)."
    approve: bool
    "True approves (accepts an asset); false rejects."
    reason: Optional[str] = None
    "Required to reject anything but a plan step; kept as the comment of a workflow step's approval; at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."


class ReviewInboxFilter(BaseModel):
    """Every condition given must hold; none given lists everything waiting."""

    since: Optional[datetime] = None
    "Waiting since this time or later."
    until: Optional[datetime] = None
    "Waiting since before this time; must be later than `since`."
    search: Optional[str] = None
    "Case-insensitive substring of the plan's title or question (reviewInbox), of the workflow's name (workflowStepsAwaitingReview): 3 to 200 bytes."


class StepCompletionInput(BaseModel):
    """One step's completion in completeWorkflowSteps."""

    step_id: str = Field(alias="stepId")
    "Your RUNNING step."
    attempt: Optional[int] = None
    "The attempt you claimed (step.attempt); a report for an older attempt is CONFLICT."
    output: Optional[Any] = None
    "What it produced; at most FLIGHTDECK_MAX_RESULT_BYTES (1 MiB by default)."


class StepInput(BaseModel):
    """A new plan step; it starts PENDING."""

    step_type: StepType = Field(alias="stepType")
    "What kind of work the step is."
    instructions: str
    "What to do; required, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    title: str = ""
    "Short name; optional, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    output_formatting_notes: Optional[str] = Field(
        alias="outputFormattingNotes", default=None
    )
    "How this step's results should appear in the final output; at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."


class SubmitStepResultInput(BaseModel):
    """A step's result (submitStepResult)."""

    step_id: str = Field(alias="stepId")
    "The step: PENDING or IN_PROGRESS, in a plan that is not finished."
    result_summary: str = Field(alias="resultSummary")
    "What the step found; required, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    result_data: Optional[Any] = Field(alias="resultData", default=None)
    "Structured result, a JSON object whose keys branching conditions read; at most FLIGHTDECK_MAX_RESULT_BYTES (1 MiB by default)."
    confidence: Optional[float] = None
    "Confidence in the result, in [0, 1]."
    step_execution_report: Optional[str] = Field(
        alias="stepExecutionReport", default=None
    )
    "How the step was done (sources, method); at most FLIGHTDECK_MAX_RESULT_BYTES (1 MiB by default)."
    output_formatting_notes: Optional[str] = Field(
        alias="outputFormattingNotes", default=None
    )
    "Replaces the step's notes; omitted or null keeps those it was created with. Notes given are at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."


class ToolStepInput(BaseModel):
    """A tool step; naming the tool (and parameters) selects (and configures) it."""

    name: str
    "What the step is called; required, at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    description: str = ""
    "What the step does; at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8."
    tool_name: Optional[str] = Field(alias="toolName", default=None)
    "A registered tool's name: the step starts READY_TO_CONFIGURE instead of PROPOSED."
    parameters: Optional[Any] = None
    "Checked against the tool's schema; needs toolName. The step starts READY_TO_EXECUTE. A JSON object, at most FLIGHTDECK_MAX_RESULT_BYTES (1 MiB by default)."


class UpdateWebhookEndpointInput(BaseModel):
    """What to change on an endpoint; omitted fields stay as they are."""

    id: str
    "The endpoint."
    url: Optional[str] = None
    "http:// or https:// only, at most 2048 bytes; loopback, private and link-local addresses are refused unless the operator allows them (FLIGHTDECK_WEBHOOK_ALLOW_PRIVATE_TARGETS)."
    topics: Optional[list[WebhookTopic]] = None
    "What it receives; at least one."
    description: Optional[str] = None
    "A note, at most 200 bytes."
    enabled: Optional[bool] = None
    "False pauses deliveries (events wait); True resumes them."


class WorkflowStepInput(BaseModel):
    """One step of the DAG."""

    name: str
    "Unique within the workflow (at most 200 bytes); dependsOn and compensation name it."
    depends_on: list[str] = Field(alias="dependsOn", default_factory=lambda: [])
    "Names of the steps that must be completed or skipped before this one runs; no cycles."
    agent: Optional[str] = None
    "Only this agent may claim the step (at most 200 bytes); not for gates."
    timeout: Optional[str] = None
    'How long the step may run from its claim before it fails (category timeout). A duration like "30s", "5m" or "1h30m" (units ms, s, m, h, d), more than zero, at most 365d.'
    heartbeat_timeout: Optional[str] = Field(alias="heartbeatTimeout", default=None)
    'How long a claimed step may go without a heartbeat (from its claim, then from each heartbeat) before it times out (category timeout) and its retry policy, then onFailure, decide. Not for gates. A duration like "30s", "5m" or "1h30m" (units ms, s, m, h, d), more than zero, at most 365d.'
    on_failure: Optional[StepFailureAction] = Field(alias="onFailure", default=None)
    "What the step's failure does once it is not retried; default: the workflow's failurePolicy."
    retry_policy: Optional["RetryPolicyInput"] = Field(
        alias="retryPolicy", default=None
    )
    "When to retry a failure; null: the seed's (3 retries, exponential, 1s up to 60s). Not for gates."
    approval: bool = False
    "An approval gate: the workflow blocks until a reviewer answers."


CreateResearchPlanInput.model_rebuild()
CreateWorkflowInput.model_rebuild()
ModifyPlanInput.model_rebuild()
ProposeHopImplementationInput.model_rebuild()
WorkflowStepInput.model_rebuild()
