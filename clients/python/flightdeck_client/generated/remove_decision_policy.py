from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems


class RemoveDecisionPolicy(BaseModel):
    remove_decision_policy: "RemoveDecisionPolicyRemoveDecisionPolicy" = Field(
        alias="removeDecisionPolicy"
    )


class RemoveDecisionPolicyRemoveDecisionPolicy(BaseModel):
    removed: bool
    user_errors: list["RemoveDecisionPolicyRemoveDecisionPolicyUserErrors"] = Field(
        alias="userErrors"
    )


RemoveDecisionPolicyRemoveDecisionPolicyUserErrors = Problems
RemoveDecisionPolicy.model_rebuild()
RemoveDecisionPolicyRemoveDecisionPolicy.model_rebuild()
