from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import PlanStatus
from .fragments import Problems


class ResumeSession(BaseModel):
    resume_session: "ResumeSessionResumeSession" = Field(alias="resumeSession")


class ResumeSessionResumeSession(BaseModel):
    plan: Optional["ResumeSessionResumeSessionPlan"]
    resumed: Optional[bool]
    user_errors: list["ResumeSessionResumeSessionUserErrors"] = Field(
        alias="userErrors"
    )


class ResumeSessionResumeSessionPlan(BaseModel):
    id: str
    status: PlanStatus


ResumeSessionResumeSessionUserErrors = Problems
ResumeSession.model_rebuild()
ResumeSessionResumeSession.model_rebuild()
