from pydantic import Field

from .base_model import BaseModel


class LatestSeq(BaseModel):
    latest_seq: int = Field(alias="latestSeq")
