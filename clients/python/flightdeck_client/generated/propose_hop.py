from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class ProposeHop(BaseModel):
    propose_hop: "ProposeHopProposeHop" = Field(alias="proposeHop")


class ProposeHopProposeHop(BaseModel):
    mission: Optional["ProposeHopProposeHopMission"]
    hop: Optional["ProposeHopProposeHopHop"]
    tool_steps: list["ProposeHopProposeHopToolSteps"] = Field(alias="toolSteps")
    user_errors: list["ProposeHopProposeHopUserErrors"] = Field(alias="userErrors")


ProposeHopProposeHopMission = MissionFields
ProposeHopProposeHopHop = HopFields
ProposeHopProposeHopToolSteps = ToolStepFields
ProposeHopProposeHopUserErrors = Problems
ProposeHop.model_rebuild()
ProposeHopProposeHop.model_rebuild()
