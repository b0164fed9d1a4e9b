from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import DecisionFields


class DecisionInbox(BaseModel):
    decision_inbox: "DecisionInboxDecisionInbox" = Field(alias="decisionInbox")


class DecisionInboxDecisionInbox(BaseModel):
    edges: list["DecisionInboxDecisionInboxEdges"]
    page_info: "DecisionInboxDecisionInboxPageInfo" = Field(alias="pageInfo")
    total_count: int = Field(alias="totalCount")


class DecisionInboxDecisionInboxEdges(BaseModel):
    cursor: str
    node: "DecisionInboxDecisionInboxEdgesNode"


DecisionInboxDecisionInboxEdgesNode = DecisionFields


class DecisionInboxDecisionInboxPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


DecisionInbox.model_rebuild()
DecisionInboxDecisionInbox.model_rebuild()
DecisionInboxDecisionInboxEdges.model_rebuild()
