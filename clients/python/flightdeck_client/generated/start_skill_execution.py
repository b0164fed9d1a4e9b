from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems, SkillExecutionFields


class StartSkillExecution(BaseModel):
    start_skill_execution: "StartSkillExecutionStartSkillExecution" = Field(
        alias="startSkillExecution"
    )


class StartSkillExecutionStartSkillExecution(BaseModel):
    skill_execution: Optional[
        "StartSkillExecutionStartSkillExecutionSkillExecution"
    ] = Field(alias="skillExecution")
    user_errors: list["StartSkillExecutionStartSkillExecutionUserErrors"] = Field(
        alias="userErrors"
    )


StartSkillExecutionStartSkillExecutionSkillExecution = SkillExecutionFields
StartSkillExecutionStartSkillExecutionUserErrors = Problems
StartSkillExecution.model_rebuild()
StartSkillExecutionStartSkillExecution.model_rebuild()
