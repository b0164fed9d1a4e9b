"""Event kinds of decision points, past tense. Entity ``decision``; the root is the root of
what the decision is about (its plan, workflow or mission), so the root's subscribers see them.

``decision_transitioned`` records each move of the decision's own machine; these carry the rest.
Webhooks deliver them as "review requested", "decision made", "deadline applied"
and "escalated".
"""

from __future__ import annotations

from enum import StrEnum

ENTITY = "decision"


class DecisionEvent(StrEnum):
    REVIEW_REQUESTED = "review_requested"
    DECISION_MADE = "decision_made"
    DEADLINE_APPLIED = "decision_deadline_applied"
    ESCALATED = "decision_escalated"
    DECISION_WITHDRAWN = "decision_withdrawn"
    TERMS_CHANGED = "decision_terms_changed"
