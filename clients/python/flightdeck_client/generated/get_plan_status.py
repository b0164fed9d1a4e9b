from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import PlanStatus
from .fragments import ResearchPlanFields


class GetPlanStatus(BaseModel):
    plan_status: Optional["GetPlanStatusPlanStatus"] = Field(alias="planStatus")


class GetPlanStatusPlanStatus(BaseModel):
    plan: "GetPlanStatusPlanStatusPlan"
    status: PlanStatus
    derived_status: PlanStatus = Field(alias="derivedStatus")
    progress_percent: float = Field(alias="progressPercent")
    stalled: bool
    stalled_step_ids: list[str] = Field(alias="stalledStepIds")
    stall_threshold_seconds: float = Field(alias="stallThresholdSeconds")
    total_steps: int = Field(alias="totalSteps")
    counts: "GetPlanStatusPlanStatusCounts"


GetPlanStatusPlanStatusPlan = ResearchPlanFields


class GetPlanStatusPlanStatusCounts(BaseModel):
    pending: int
    in_progress: int = Field(alias="inProgress")
    awaiting_input: int = Field(alias="awaitingInput")
    completed: int
    skipped: int
    failed: int


GetPlanStatus.model_rebuild()
GetPlanStatusPlanStatus.model_rebuild()
