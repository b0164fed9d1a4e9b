from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import AssetFields, MissionFields, Problems


class StartAssetProcessing(BaseModel):
    start_asset_processing: "StartAssetProcessingStartAssetProcessing" = Field(
        alias="startAssetProcessing"
    )


class StartAssetProcessingStartAssetProcessing(BaseModel):
    mission: Optional["StartAssetProcessingStartAssetProcessingMission"]
    asset: Optional["StartAssetProcessingStartAssetProcessingAsset"]
    user_errors: list["StartAssetProcessingStartAssetProcessingUserErrors"] = Field(
        alias="userErrors"
    )


StartAssetProcessingStartAssetProcessingMission = MissionFields
StartAssetProcessingStartAssetProcessingAsset = AssetFields
StartAssetProcessingStartAssetProcessingUserErrors = Problems
StartAssetProcessing.model_rebuild()
StartAssetProcessingStartAssetProcessing.model_rebuild()
