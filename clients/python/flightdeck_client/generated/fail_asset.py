from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import AssetFields, MissionFields, Problems


class FailAsset(BaseModel):
    fail_asset: "FailAssetFailAsset" = Field(alias="failAsset")


class FailAssetFailAsset(BaseModel):
    mission: Optional["FailAssetFailAssetMission"]
    asset: Optional["FailAssetFailAssetAsset"]
    user_errors: list["FailAssetFailAssetUserErrors"] = Field(alias="userErrors")


FailAssetFailAssetMission = MissionFields
FailAssetFailAssetAsset = AssetFields
FailAssetFailAssetUserErrors = Problems
FailAsset.model_rebuild()
FailAssetFailAsset.model_rebuild()
