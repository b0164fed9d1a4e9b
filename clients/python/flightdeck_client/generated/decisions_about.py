from pydantic import Field

from .base_model import BaseModel
from .fragments import DecisionFields


class DecisionsAbout(BaseModel):
    decisions_about: list["DecisionsAboutDecisionsAbout"] = Field(
        alias="decisionsAbout"
    )


DecisionsAboutDecisionsAbout = DecisionFields
DecisionsAbout.model_rebuild()
