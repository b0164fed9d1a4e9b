from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import AssetFields, MissionFields, Problems


class CompleteAssetProcessing(BaseModel):
    complete_asset_processing: "CompleteAssetProcessingCompleteAssetProcessing" = Field(
        alias="completeAssetProcessing"
    )


class CompleteAssetProcessingCompleteAssetProcessing(BaseModel):
    mission: Optional["CompleteAssetProcessingCompleteAssetProcessingMission"]
    asset: Optional["CompleteAssetProcessingCompleteAssetProcessingAsset"]
    user_errors: list["CompleteAssetProcessingCompleteAssetProcessingUserErrors"] = (
        Field(alias="userErrors")
    )


CompleteAssetProcessingCompleteAssetProcessingMission = MissionFields
CompleteAssetProcessingCompleteAssetProcessingAsset = AssetFields
CompleteAssetProcessingCompleteAssetProcessingUserErrors = Problems
CompleteAssetProcessing.model_rebuild()
CompleteAssetProcessingCompleteAssetProcessing.model_rebuild()
