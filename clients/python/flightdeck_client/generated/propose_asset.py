from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import AssetFields, MissionFields, Problems


class ProposeAsset(BaseModel):
    propose_asset: "ProposeAssetProposeAsset" = Field(alias="proposeAsset")


class ProposeAssetProposeAsset(BaseModel):
    mission: Optional["ProposeAssetProposeAssetMission"]
    asset: Optional["ProposeAssetProposeAssetAsset"]
    user_errors: list["ProposeAssetProposeAssetUserErrors"] = Field(alias="userErrors")


ProposeAssetProposeAssetMission = MissionFields
ProposeAssetProposeAssetAsset = AssetFields
ProposeAssetProposeAssetUserErrors = Problems
ProposeAsset.model_rebuild()
ProposeAssetProposeAsset.model_rebuild()
