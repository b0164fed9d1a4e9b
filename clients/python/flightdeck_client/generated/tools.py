from .base_model import BaseModel
from .fragments import ToolFields


class Tools(BaseModel):
    tools: list["ToolsTools"]


ToolsTools = ToolFields
Tools.model_rebuild()
