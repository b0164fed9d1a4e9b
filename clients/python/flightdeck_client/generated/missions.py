from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import MissionFields


class Missions(BaseModel):
    missions: "MissionsMissions"


class MissionsMissions(BaseModel):
    edges: list["MissionsMissionsEdges"]
    page_info: "MissionsMissionsPageInfo" = Field(alias="pageInfo")
    total_count: int = Field(alias="totalCount")


class MissionsMissionsEdges(BaseModel):
    cursor: str
    node: "MissionsMissionsEdgesNode"


MissionsMissionsEdgesNode = MissionFields


class MissionsMissionsPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


Missions.model_rebuild()
MissionsMissions.model_rebuild()
MissionsMissionsEdges.model_rebuild()
