from datetime import datetime
from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import ResearchPlanFields


class FollowStallAlerts(BaseModel):
    stall_alerts: "FollowStallAlertsStallAlerts" = Field(alias="stallAlerts")


class FollowStallAlertsStallAlerts(BaseModel):
    seq: int
    plan_id: str = Field(alias="planId")
    steps: list["FollowStallAlertsStallAlertsSteps"]
    threshold_seconds: float = Field(alias="thresholdSeconds")
    detected_at: datetime = Field(alias="detectedAt")
    plan: Optional["FollowStallAlertsStallAlertsPlan"]


class FollowStallAlertsStallAlertsSteps(BaseModel):
    step_id: str = Field(alias="stepId")
    running_seconds: float = Field(alias="runningSeconds")


FollowStallAlertsStallAlertsPlan = ResearchPlanFields
FollowStallAlerts.model_rebuild()
FollowStallAlertsStallAlerts.model_rebuild()
