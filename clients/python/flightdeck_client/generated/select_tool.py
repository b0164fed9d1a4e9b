from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class SelectTool(BaseModel):
    select_tool: "SelectToolSelectTool" = Field(alias="selectTool")


class SelectToolSelectTool(BaseModel):
    mission: Optional["SelectToolSelectToolMission"]
    hop: Optional["SelectToolSelectToolHop"]
    tool_step: Optional["SelectToolSelectToolToolStep"] = Field(alias="toolStep")
    user_errors: list["SelectToolSelectToolUserErrors"] = Field(alias="userErrors")


SelectToolSelectToolMission = MissionFields
SelectToolSelectToolHop = HopFields
SelectToolSelectToolToolStep = ToolStepFields
SelectToolSelectToolUserErrors = Problems
SelectTool.model_rebuild()
SelectToolSelectTool.model_rebuild()
