"""A typed client for Flightdeck: generated operations (``FlightdeckGraphQL``), a workflow ``Worker``
and a ``PlanAgent`` for research plans."""

from .connection import connect
from .errors import (
    AgentError,
    ClientError,
    ExternalError,
    GovernanceBlocked,
    StepFailed,
    StepTimeout,
    TransientError,
    ValidationFailed,
)
from .generated.client import FlightdeckGraphQL
from .plan_agent import PlanAgent
from .results import FormattingNote, NextStep, ReviewRequested, StepSubmitted
from .worker import StepRun, Worker

__all__ = [
    "AgentError",
    "ClientError",
    "ExternalError",
    "FlightdeckGraphQL",
    "FormattingNote",
    "GovernanceBlocked",
    "NextStep",
    "PlanAgent",
    "ReviewRequested",
    "StepFailed",
    "StepRun",
    "StepSubmitted",
    "StepTimeout",
    "TransientError",
    "ValidationFailed",
    "Worker",
    "connect",
]
