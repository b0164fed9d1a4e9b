from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import (
    BranchingConditionFields,
    PlanStepFields,
    ResearchOutputFields,
    ResearchPlanFields,
)


class ResearchPlan(BaseModel):
    research_plan: Optional["ResearchPlanResearchPlan"] = Field(alias="researchPlan")


class ResearchPlanResearchPlan(ResearchPlanFields):
    steps: list["ResearchPlanResearchPlanSteps"]
    branching_conditions: list["ResearchPlanResearchPlanBranchingConditions"] = Field(
        alias="branchingConditions"
    )
    outputs: list["ResearchPlanResearchPlanOutputs"]


ResearchPlanResearchPlanSteps = PlanStepFields
ResearchPlanResearchPlanBranchingConditions = BranchingConditionFields
ResearchPlanResearchPlanOutputs = ResearchOutputFields
ResearchPlan.model_rebuild()
ResearchPlanResearchPlan.model_rebuild()
