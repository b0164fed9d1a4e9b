from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import AssetFields, MissionFields, Problems


class AcceptAsset(BaseModel):
    accept_asset: "AcceptAssetAcceptAsset" = Field(alias="acceptAsset")


class AcceptAssetAcceptAsset(BaseModel):
    mission: Optional["AcceptAssetAcceptAssetMission"]
    asset: Optional["AcceptAssetAcceptAssetAsset"]
    user_errors: list["AcceptAssetAcceptAssetUserErrors"] = Field(alias="userErrors")


AcceptAssetAcceptAssetMission = MissionFields
AcceptAssetAcceptAssetAsset = AssetFields
AcceptAssetAcceptAssetUserErrors = Problems
AcceptAsset.model_rebuild()
AcceptAssetAcceptAsset.model_rebuild()
