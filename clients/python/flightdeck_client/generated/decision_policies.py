from pydantic import Field

from .base_model import BaseModel
from .fragments import DecisionPolicyFields


class DecisionPolicies(BaseModel):
    decision_policies: list["DecisionPoliciesDecisionPolicies"] = Field(
        alias="decisionPolicies"
    )


DecisionPoliciesDecisionPolicies = DecisionPolicyFields
DecisionPolicies.model_rebuild()
