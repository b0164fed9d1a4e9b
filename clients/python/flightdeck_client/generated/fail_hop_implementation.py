from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class FailHopImplementation(BaseModel):
    fail_hop_implementation: "FailHopImplementationFailHopImplementation" = Field(
        alias="failHopImplementation"
    )


class FailHopImplementationFailHopImplementation(BaseModel):
    mission: Optional["FailHopImplementationFailHopImplementationMission"]
    hop: Optional["FailHopImplementationFailHopImplementationHop"]
    tool_steps: list["FailHopImplementationFailHopImplementationToolSteps"] = Field(
        alias="toolSteps"
    )
    user_errors: list["FailHopImplementationFailHopImplementationUserErrors"] = Field(
        alias="userErrors"
    )


FailHopImplementationFailHopImplementationMission = MissionFields
FailHopImplementationFailHopImplementationHop = HopFields
FailHopImplementationFailHopImplementationToolSteps = ToolStepFields
FailHopImplementationFailHopImplementationUserErrors = Problems
FailHopImplementation.model_rebuild()
FailHopImplementationFailHopImplementation.model_rebuild()
