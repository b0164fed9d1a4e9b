from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems, ToolFields


class RegisterTool(BaseModel):
    register_tool: "RegisterToolRegisterTool" = Field(alias="registerTool")


class RegisterToolRegisterTool(BaseModel):
    tool: Optional["RegisterToolRegisterToolTool"]
    user_errors: list["RegisterToolRegisterToolUserErrors"] = Field(alias="userErrors")


RegisterToolRegisterToolTool = ToolFields
RegisterToolRegisterToolUserErrors = Problems
RegisterTool.model_rebuild()
RegisterToolRegisterTool.model_rebuild()
