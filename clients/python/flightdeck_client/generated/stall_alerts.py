from datetime import datetime
from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import ResearchPlanFields


class StallAlerts(BaseModel):
    stall_alerts: "StallAlertsStallAlerts" = Field(alias="stallAlerts")


class StallAlertsStallAlerts(BaseModel):
    edges: list["StallAlertsStallAlertsEdges"]
    page_info: "StallAlertsStallAlertsPageInfo" = Field(alias="pageInfo")
    total_count: int = Field(alias="totalCount")


class StallAlertsStallAlertsEdges(BaseModel):
    cursor: str
    node: "StallAlertsStallAlertsEdgesNode"


class StallAlertsStallAlertsEdgesNode(BaseModel):
    seq: int
    plan_id: str = Field(alias="planId")
    steps: list["StallAlertsStallAlertsEdgesNodeSteps"]
    threshold_seconds: float = Field(alias="thresholdSeconds")
    detected_at: datetime = Field(alias="detectedAt")
    plan: Optional["StallAlertsStallAlertsEdgesNodePlan"]


class StallAlertsStallAlertsEdgesNodeSteps(BaseModel):
    step_id: str = Field(alias="stepId")
    running_seconds: float = Field(alias="runningSeconds")


StallAlertsStallAlertsEdgesNodePlan = ResearchPlanFields


class StallAlertsStallAlertsPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


StallAlerts.model_rebuild()
StallAlertsStallAlerts.model_rebuild()
StallAlertsStallAlertsEdges.model_rebuild()
StallAlertsStallAlertsEdgesNode.model_rebuild()
