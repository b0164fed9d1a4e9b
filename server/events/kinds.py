"""Event kinds. The seed's eight audit event types, plus our own (all past tense).

Every state change also writes ``<entity>_transitioned`` with its from and to state
(see services/transitions.py).
"""

from __future__ import annotations

from enum import StrEnum


class AuditEvent(StrEnum):
    """Seed 003's audit log types, written exactly where the seed says they fire."""

    STEP_STARTED = "step_started"
    STEP_COMPLETED = "step_completed"
    STEP_FAILED = "step_failed"
    PLAN_MODIFIED = "plan_modified"
    USER_REVIEWED = "user_reviewed"
    SESSION_RESUMED = "session_resumed"
    SKILL_STARTED = "skill_started"
    SKILL_COMPLETED = "skill_completed"


class EngineEvent(StrEnum):
    BRANCH_FIRED = "branch_fired"
    PLAN_FAILED = "plan_failed"
    PLAN_STALLED = "plan_stalled"
    STEP_RETRIED = "step_retried"
    RESEARCH_OUTPUT_STORED = "research_output_stored"
