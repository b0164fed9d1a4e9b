from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import DecisionPolicyFields, Problems


class SetDecisionPolicy(BaseModel):
    set_decision_policy: "SetDecisionPolicySetDecisionPolicy" = Field(
        alias="setDecisionPolicy"
    )


class SetDecisionPolicySetDecisionPolicy(BaseModel):
    policy: Optional["SetDecisionPolicySetDecisionPolicyPolicy"]
    user_errors: list["SetDecisionPolicySetDecisionPolicyUserErrors"] = Field(
        alias="userErrors"
    )


SetDecisionPolicySetDecisionPolicyPolicy = DecisionPolicyFields
SetDecisionPolicySetDecisionPolicyUserErrors = Problems
SetDecisionPolicy.model_rebuild()
SetDecisionPolicySetDecisionPolicy.model_rebuild()
