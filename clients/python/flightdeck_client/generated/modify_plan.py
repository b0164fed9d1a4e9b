from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems, ResearchPlanFields


class ModifyPlan(BaseModel):
    modify_plan: "ModifyPlanModifyPlan" = Field(alias="modifyPlan")


class ModifyPlanModifyPlan(BaseModel):
    plan: Optional["ModifyPlanModifyPlanPlan"]
    affected_step_ids: list[str] = Field(alias="affectedStepIds")
    user_errors: list["ModifyPlanModifyPlanUserErrors"] = Field(alias="userErrors")


ModifyPlanModifyPlanPlan = ResearchPlanFields
ModifyPlanModifyPlanUserErrors = Problems
ModifyPlan.model_rebuild()
ModifyPlanModifyPlan.model_rebuild()
