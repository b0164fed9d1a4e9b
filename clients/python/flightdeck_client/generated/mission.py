from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import AssetFields, HopFields, MissionFields, ToolStepFields


class Mission(BaseModel):
    mission: Optional["MissionMission"]


class MissionMission(MissionFields):
    current_hop: Optional["MissionMissionCurrentHop"] = Field(alias="currentHop")
    hops: "MissionMissionHops"
    assets: "MissionMissionAssets"


MissionMissionCurrentHop = HopFields


class MissionMissionHops(BaseModel):
    edges: list["MissionMissionHopsEdges"]
    page_info: "MissionMissionHopsPageInfo" = Field(alias="pageInfo")


class MissionMissionHopsEdges(BaseModel):
    node: "MissionMissionHopsEdgesNode"


class MissionMissionHopsEdgesNode(HopFields):
    tool_steps: "MissionMissionHopsEdgesNodeToolSteps" = Field(alias="toolSteps")


class MissionMissionHopsEdgesNodeToolSteps(BaseModel):
    edges: list["MissionMissionHopsEdgesNodeToolStepsEdges"]
    page_info: "MissionMissionHopsEdgesNodeToolStepsPageInfo" = Field(alias="pageInfo")


class MissionMissionHopsEdgesNodeToolStepsEdges(BaseModel):
    node: "MissionMissionHopsEdgesNodeToolStepsEdgesNode"


MissionMissionHopsEdgesNodeToolStepsEdgesNode = ToolStepFields


class MissionMissionHopsEdgesNodeToolStepsPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


class MissionMissionHopsPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


class MissionMissionAssets(BaseModel):
    edges: list["MissionMissionAssetsEdges"]
    page_info: "MissionMissionAssetsPageInfo" = Field(alias="pageInfo")


class MissionMissionAssetsEdges(BaseModel):
    node: "MissionMissionAssetsEdgesNode"


MissionMissionAssetsEdgesNode = AssetFields


class MissionMissionAssetsPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


Mission.model_rebuild()
MissionMission.model_rebuild()
MissionMissionHops.model_rebuild()
MissionMissionHopsEdges.model_rebuild()
MissionMissionHopsEdgesNode.model_rebuild()
MissionMissionHopsEdgesNodeToolSteps.model_rebuild()
MissionMissionHopsEdgesNodeToolStepsEdges.model_rebuild()
MissionMissionAssets.model_rebuild()
MissionMissionAssetsEdges.model_rebuild()
