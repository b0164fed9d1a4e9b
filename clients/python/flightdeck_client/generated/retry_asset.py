from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import AssetFields, MissionFields, Problems


class RetryAsset(BaseModel):
    retry_asset: "RetryAssetRetryAsset" = Field(alias="retryAsset")


class RetryAssetRetryAsset(BaseModel):
    mission: Optional["RetryAssetRetryAssetMission"]
    asset: Optional["RetryAssetRetryAssetAsset"]
    user_errors: list["RetryAssetRetryAssetUserErrors"] = Field(alias="userErrors")


RetryAssetRetryAssetMission = MissionFields
RetryAssetRetryAssetAsset = AssetFields
RetryAssetRetryAssetUserErrors = Problems
RetryAsset.model_rebuild()
RetryAssetRetryAsset.model_rebuild()
