from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems, ResearchPlanFields


class ResumeSession(BaseModel):
    resume_session: "ResumeSessionResumeSession" = Field(alias="resumeSession")


class ResumeSessionResumeSession(BaseModel):
    plan: Optional["ResumeSessionResumeSessionPlan"]
    resumed: Optional[bool]
    user_errors: list["ResumeSessionResumeSessionUserErrors"] = Field(
        alias="userErrors"
    )


ResumeSessionResumeSessionPlan = ResearchPlanFields
ResumeSessionResumeSessionUserErrors = Problems
ResumeSession.model_rebuild()
ResumeSessionResumeSession.model_rebuild()
