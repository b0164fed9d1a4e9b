from datetime import datetime
from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import MissionReviewKind
from .fragments import AssetFields, HopFields, MissionFields


class MissionReviews(BaseModel):
    mission_reviews: "MissionReviewsMissionReviews" = Field(alias="missionReviews")


class MissionReviewsMissionReviews(BaseModel):
    edges: list["MissionReviewsMissionReviewsEdges"]
    page_info: "MissionReviewsMissionReviewsPageInfo" = Field(alias="pageInfo")
    total_count: int = Field(alias="totalCount")


class MissionReviewsMissionReviewsEdges(BaseModel):
    cursor: str
    node: "MissionReviewsMissionReviewsEdgesNode"


class MissionReviewsMissionReviewsEdgesNode(BaseModel):
    kind: MissionReviewKind
    waiting_since: datetime = Field(alias="waitingSince")
    mission: "MissionReviewsMissionReviewsEdgesNodeMission"
    hop: Optional["MissionReviewsMissionReviewsEdgesNodeHop"]
    asset: Optional["MissionReviewsMissionReviewsEdgesNodeAsset"]


MissionReviewsMissionReviewsEdgesNodeMission = MissionFields
MissionReviewsMissionReviewsEdgesNodeHop = HopFields
MissionReviewsMissionReviewsEdgesNodeAsset = AssetFields


class MissionReviewsMissionReviewsPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


MissionReviews.model_rebuild()
MissionReviewsMissionReviews.model_rebuild()
MissionReviewsMissionReviewsEdges.model_rebuild()
MissionReviewsMissionReviewsEdgesNode.model_rebuild()
