from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems, SkillExecutionFields


class CompleteSkillExecution(BaseModel):
    complete_skill_execution: "CompleteSkillExecutionCompleteSkillExecution" = Field(
        alias="completeSkillExecution"
    )


class CompleteSkillExecutionCompleteSkillExecution(BaseModel):
    skill_execution: Optional[
        "CompleteSkillExecutionCompleteSkillExecutionSkillExecution"
    ] = Field(alias="skillExecution")
    user_errors: list["CompleteSkillExecutionCompleteSkillExecutionUserErrors"] = Field(
        alias="userErrors"
    )


CompleteSkillExecutionCompleteSkillExecutionSkillExecution = SkillExecutionFields
CompleteSkillExecutionCompleteSkillExecutionUserErrors = Problems
CompleteSkillExecution.model_rebuild()
CompleteSkillExecutionCompleteSkillExecution.model_rebuild()
