from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class ProposeHopImplementation(BaseModel):
    propose_hop_implementation: "ProposeHopImplementationProposeHopImplementation" = (
        Field(alias="proposeHopImplementation")
    )


class ProposeHopImplementationProposeHopImplementation(BaseModel):
    mission: Optional["ProposeHopImplementationProposeHopImplementationMission"]
    hop: Optional["ProposeHopImplementationProposeHopImplementationHop"]
    tool_steps: list["ProposeHopImplementationProposeHopImplementationToolSteps"] = (
        Field(alias="toolSteps")
    )
    user_errors: list["ProposeHopImplementationProposeHopImplementationUserErrors"] = (
        Field(alias="userErrors")
    )


ProposeHopImplementationProposeHopImplementationMission = MissionFields
ProposeHopImplementationProposeHopImplementationHop = HopFields
ProposeHopImplementationProposeHopImplementationToolSteps = ToolStepFields
ProposeHopImplementationProposeHopImplementationUserErrors = Problems
ProposeHopImplementation.model_rebuild()
ProposeHopImplementationProposeHopImplementation.model_rebuild()
