from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import AssetFields, MissionFields, Problems


class RejectAsset(BaseModel):
    reject_asset: "RejectAssetRejectAsset" = Field(alias="rejectAsset")


class RejectAssetRejectAsset(BaseModel):
    mission: Optional["RejectAssetRejectAssetMission"]
    asset: Optional["RejectAssetRejectAssetAsset"]
    user_errors: list["RejectAssetRejectAssetUserErrors"] = Field(alias="userErrors")


RejectAssetRejectAssetMission = MissionFields
RejectAssetRejectAssetAsset = AssetFields
RejectAssetRejectAssetUserErrors = Problems
RejectAsset.model_rebuild()
RejectAssetRejectAsset.model_rebuild()
