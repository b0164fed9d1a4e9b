from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import DecisionFields, Problems


class SetDecisionTerms(BaseModel):
    set_decision_terms: "SetDecisionTermsSetDecisionTerms" = Field(
        alias="setDecisionTerms"
    )


class SetDecisionTermsSetDecisionTerms(BaseModel):
    decision: Optional["SetDecisionTermsSetDecisionTermsDecision"]
    user_errors: list["SetDecisionTermsSetDecisionTermsUserErrors"] = Field(
        alias="userErrors"
    )


SetDecisionTermsSetDecisionTermsDecision = DecisionFields
SetDecisionTermsSetDecisionTermsUserErrors = Problems
SetDecisionTerms.model_rebuild()
SetDecisionTermsSetDecisionTerms.model_rebuild()
