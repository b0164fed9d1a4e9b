from pydantic import Field

from .base_model import BaseModel
from .fragments import AssetFields, HopFields, MissionFields


class MissionReviewInbox(BaseModel):
    mission_review_inbox: "MissionReviewInboxMissionReviewInbox" = Field(
        alias="missionReviewInbox"
    )


class MissionReviewInboxMissionReviewInbox(BaseModel):
    missions: list["MissionReviewInboxMissionReviewInboxMissions"]
    hop_plans: list["MissionReviewInboxMissionReviewInboxHopPlans"] = Field(
        alias="hopPlans"
    )
    hop_implementations: list[
        "MissionReviewInboxMissionReviewInboxHopImplementations"
    ] = Field(alias="hopImplementations")
    assets: list["MissionReviewInboxMissionReviewInboxAssets"]


MissionReviewInboxMissionReviewInboxMissions = MissionFields
MissionReviewInboxMissionReviewInboxHopPlans = HopFields
MissionReviewInboxMissionReviewInboxHopImplementations = HopFields
MissionReviewInboxMissionReviewInboxAssets = AssetFields
MissionReviewInbox.model_rebuild()
MissionReviewInboxMissionReviewInbox.model_rebuild()
