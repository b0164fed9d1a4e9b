"""Enums shared by the API, made from the machines' own enums so names cannot drift."""

from __future__ import annotations

from ..machines.branching import BranchAction, BranchOp
from ..machines.plan import PlanStatus, StepStatus
from ..machines.skill import SkillStatus
from ..services.plans.execution import NextStepOutcome
from ..services.plans.inputs import Decision, ModifyAction, StepType
from .descriptions import described_enum

PlanStatusEnum = described_enum(
    PlanStatus,
    "PlanStatus",
    "Where a research plan is in its lifecycle (seed 000); `stateMachines` lists every allowed move.",
    {
        PlanStatus.PLANNING: "Created; no step has started yet. startNextStep moves it to EXECUTING.",
        PlanStatus.EXECUTING: "Steps are being worked on (or wait for startNextStep).",
        PlanStatus.AWAITING_REVIEW: "A step awaits a person's decision (submitUserDecision); steps "
        "cannot be started and the plan cannot be modified until none does.",
        PlanStatus.STALLED: "A step has been in progress longer than the stall threshold; startNextStep "
        "or a step result resumes it (EXECUTING).",
        PlanStatus.COMPLETED: "Final: every step is completed, skipped or failed.",
        PlanStatus.FAILED: "Final: failed explicitly (failPlan, a rejected step or a branching `fail`); "
        "its unfinished steps were failed with it.",
    },
)
StepStatusEnum = described_enum(
    StepStatus,
    "StepStatus",
    "Where a plan step is in its lifecycle (seed 000).",
    {
        StepStatus.PENDING: "Not started. startNextStep starts the first pending step.",
        StepStatus.IN_PROGRESS: "Being worked on: submitStepResult completes it, requestUserReview "
        "pauses it for a person.",
        StepStatus.AWAITING_INPUT: "Paused for a person: submitUserDecision approves, rejects, modifies or "
        "skips it.",
        StepStatus.COMPLETED: "Final: a result was submitted or a reviewer approved it.",
        StepStatus.SKIPPED: "Final: passed over by a reviewer's `skip` or a branching `skip_to`.",
        StepStatus.FAILED: "Failed (fail_step, a reviewer's reject or a failed plan); retryStep returns it "
        "to PENDING while the plan is not finished.",
    },
)
SkillStatusEnum = described_enum(
    SkillStatus,
    "SkillExecutionStatus",
    "Where a skill execution is (seed 003): started, then completed.",
    {
        SkillStatus.STARTED: "Running; completeSkillExecution finishes it.",
        SkillStatus.COMPLETED: "Final: the skill finished.",
    },
)
StepTypeEnum = described_enum(
    StepType,
    "StepType",
    "What kind of work a plan step is (seed 000); informational, the engine treats them alike.",
    {
        StepType.SEARCH: "Find sources.",
        StepType.EXTRACT: "Pull facts or data out of sources.",
        StepType.ANALYZE: "Work through what was found.",
        StepType.CRITIQUE: "Check earlier results for gaps and errors.",
        StepType.SYNTHESIZE: "Combine results into an answer.",
        StepType.CHECKPOINT: "A point to pause and review progress.",
        StepType.CUSTOM: "Anything else; the instructions say what.",
    },
)
DecisionEnum = described_enum(
    Decision,
    "UserDecision",
    "A reviewer's answer to a step awaiting input (submitUserDecision).",
    {
        Decision.APPROVE: "The step is COMPLETED.",
        Decision.REJECT: "The step is FAILED and the whole plan FAILED with it.",
        Decision.MODIFY: "The feedback (required) is appended to the step's instructions and the step "
        "goes back to IN_PROGRESS for the agent to redo.",
        Decision.SKIP: "The step is SKIPPED; the plan goes on with the next one.",
    },
)
ModifyActionEnum = described_enum(
    ModifyAction,
    "PlanModificationAction",
    "What modifyPlan does; each action reads the ModifyPlanInput fields its description names.",
    {
        ModifyAction.ADD_STEPS: "Insert `steps` after `insertAfterOrder` (default: at the end).",
        ModifyAction.REMOVE_STEP: "Delete the pending step `stepId`, and the branching conditions that "
        "read or target it; a plan keeps at least one step.",
        ModifyAction.REORDER_STEPS: "Put the steps in the order of `stepIds`, which lists every step once.",
        ModifyAction.UPDATE_STEP_INSTRUCTIONS: "Replace the instructions of step `stepId` with "
        "`instructions`.",
        ModifyAction.FAIL_STEP: "Fail the pending or in-progress step `stepId` with `reason`.",
    },
)
BranchOpEnum = described_enum(
    BranchOp,
    "BranchOperator",
    "How a branching condition compares the step's field with its value. Numbers compare with numbers "
    "and strings with strings; values of different kinds never match (true is not 1).",
    {
        BranchOp.LT: "Field less than value.",
        BranchOp.LTE: "Field less than or equal to value.",
        BranchOp.GT: "Field greater than value.",
        BranchOp.GTE: "Field greater than or equal to value.",
        BranchOp.EQ: "Field equal to value (same kind).",
        BranchOp.NE: "Field of the same kind as value and not equal to it.",
        BranchOp.CONTAINS: "Field (a string, list or object) contains value (a substring, element or key).",
    },
)
BranchActionEnum = described_enum(
    BranchAction,
    "BranchAction",
    "What a branching condition does when it matches.",
    {
        BranchAction.SKIP_TO: "Skip the pending steps between this step and `targetStepOrder`.",
        BranchAction.FAIL: "Fail the plan.",
    },
)
NextStepOutcomeEnum = described_enum(
    NextStepOutcome,
    "NextStepOutcome",
    "What startNextStep found; it says which fields of StartNextStepPayload are set.",
    {
        NextStepOutcome.STARTED: "The first pending step is now IN_PROGRESS: `step` is it.",
        NextStepOutcome.PLAN_COMPLETE: "The plan is COMPLETED: the output and formatting fields say how to "
        "write its deliverable (storeResearchOutput).",
        NextStepOutcome.PLAN_FAILED: "The plan is FAILED; nothing more to do.",
        NextStepOutcome.AWAITING_REVIEW: "A step awaits a person's decision; ask again after it.",
        NextStepOutcome.NO_PENDING_STEPS: "Nothing pending, but steps are still in progress or failed "
        "(`inProgressCount`, `failedCount`): finish or retry them.",
    },
)
