from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems, ResearchOutputFields


class StoreResearchOutput(BaseModel):
    store_research_output: "StoreResearchOutputStoreResearchOutput" = Field(
        alias="storeResearchOutput"
    )


class StoreResearchOutputStoreResearchOutput(BaseModel):
    output: Optional["StoreResearchOutputStoreResearchOutputOutput"]
    user_errors: list["StoreResearchOutputStoreResearchOutputUserErrors"] = Field(
        alias="userErrors"
    )


StoreResearchOutputStoreResearchOutputOutput = ResearchOutputFields
StoreResearchOutputStoreResearchOutputUserErrors = Problems
StoreResearchOutput.model_rebuild()
StoreResearchOutputStoreResearchOutput.model_rebuild()
