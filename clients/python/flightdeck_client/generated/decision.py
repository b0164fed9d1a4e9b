from typing import Optional

from .base_model import BaseModel
from .fragments import DecisionFields


class Decision(BaseModel):
    decision: Optional["DecisionDecision"]


DecisionDecision = DecisionFields
Decision.model_rebuild()
