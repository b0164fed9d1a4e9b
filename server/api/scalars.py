"""Enums shared by the API, made from the machines' own enums so names cannot drift."""

from __future__ import annotations

import strawberry

from ..machines.branching import BranchAction, BranchOp
from ..machines.plan import PlanStatus, StepStatus
from ..machines.skill import SkillStatus
from ..services.plan_execution import NextStepOutcome
from ..services.plan_inputs import Decision, ModifyAction, StepType

PlanStatusEnum = strawberry.enum(PlanStatus, name="PlanStatus")
StepStatusEnum = strawberry.enum(StepStatus, name="StepStatus")
SkillStatusEnum = strawberry.enum(SkillStatus, name="SkillExecutionStatus")
StepTypeEnum = strawberry.enum(StepType, name="StepType")
DecisionEnum = strawberry.enum(Decision, name="UserDecision")
ModifyActionEnum = strawberry.enum(ModifyAction, name="PlanModificationAction")
BranchOpEnum = strawberry.enum(BranchOp, name="BranchOperator")
BranchActionEnum = strawberry.enum(BranchAction, name="BranchAction")
NextStepOutcomeEnum = strawberry.enum(NextStepOutcome, name="NextStepOutcome")
