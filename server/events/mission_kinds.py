"""Event kinds of the missions domain (seed 004), past tense.

Every state change also writes ``<entity>_transitioned`` (``mission_transitioned``, ``hop_transitioned``,
``tool_step_transitioned``, ``asset_transitioned``) through services/transitions.py; these are the acts
that carry more than a from/to: creations, the reasons of rejections, cancellations and failures,
retries and expiry.
"""

from __future__ import annotations

from enum import StrEnum


class MissionEvent(StrEnum):
    MISSION_PROPOSED = "mission_proposed"
    MISSION_REJECTED = "mission_rejected"
    MISSION_CANCELLED = "mission_cancelled"
    HOP_PROPOSED = "hop_proposed"
    HOP_PLAN_REJECTED = "hop_plan_rejected"
    HOP_CANCELLED = "hop_cancelled"
    HOP_IMPLEMENTATION_PROPOSED = "hop_implementation_proposed"
    HOP_IMPLEMENTATION_REJECTED = "hop_implementation_rejected"
    HOP_FAILED = "hop_failed"
    HOP_RETRIED = "hop_retried"
    TOOL_SELECTED = "tool_selected"
    TOOL_STEP_CONFIGURED = "tool_step_configured"
    TOOL_STEP_COMPLETED = "tool_step_completed"
    TOOL_STEP_FAILED = "tool_step_failed"
    TOOL_STEP_RETRIED = "tool_step_retried"
    TOOL_REGISTERED = "tool_registered"
    ASSET_PROPOSED = "asset_proposed"
    ASSET_REJECTED = "asset_rejected"
    ASSET_FAILED = "asset_failed"
    ASSET_RETRIED = "asset_retried"
    ASSET_EXPIRED = "asset_expired"
