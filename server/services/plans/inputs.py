"""Plain inputs of the plan services (the API maps its GraphQL inputs onto these)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ...machines.branching import BranchingCondition


class StepType(StrEnum):
    SEARCH = "search"
    EXTRACT = "extract"
    ANALYZE = "analyze"
    CRITIQUE = "critique"
    SYNTHESIZE = "synthesize"
    CHECKPOINT = "checkpoint"
    CUSTOM = "custom"


class Decision(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"
    MODIFY = "modify"
    SKIP = "skip"


class ModifyAction(StrEnum):
    ADD_STEPS = "add_steps"
    REMOVE_STEP = "remove_step"
    REORDER_STEPS = "reorder_steps"
    UPDATE_STEP_INSTRUCTIONS = "update_step_instructions"
    FAIL_STEP = "fail_step"


@dataclass(frozen=True)
class NewStep:
    step_type: str
    instructions: str
    title: str = ""
    output_formatting_notes: str | None = None


@dataclass(frozen=True)
class NewPlan:
    research_question: str
    steps: list[NewStep]
    title: str = ""
    branching_conditions: list[BranchingCondition] = field(default_factory=list)
    output_formatting_notes: str | None = None
    session_id: str | None = None
    stall_threshold_seconds: float | None = None


@dataclass(frozen=True)
class StepResult:
    step_id: str
    result_summary: str
    result_data: dict[str, Any] | None = None
    confidence: float | None = None
    step_execution_report: str | None = None
    output_formatting_notes: str | None = None


@dataclass(frozen=True)
class PlanModification:
    plan_id: str
    action: ModifyAction
    steps: list[NewStep] = field(default_factory=list)
    insert_after_order: int | None = None
    step_id: str | None = None
    step_ids: list[str] = field(default_factory=list)
    instructions: str | None = None
    reason: str | None = None
    rationale: str | None = None
