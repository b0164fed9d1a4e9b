"""What an endpoint can subscribe to: topics, each a set of event-log rows (docs/webhooks.md).

A topic matches an event by its kind, and for ``<entity>_transitioned`` events by the state moved from
or to; ``user_reviewed`` is both the request for a review and the decision, told apart by its action.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ...events.decision_kinds import DecisionEvent
from ...events.kinds import AuditEvent, EngineEvent
from ...events.mission_kinds import MissionEvent
from ...events.workflow_kinds import WorkflowEvent


class Topic(StrEnum):
    REVIEW_REQUESTED = "review.requested"
    DECISION_MADE = "decision.made"
    DEADLINE_APPLIED = "deadline.applied"
    ESCALATED = "decision.escalated"
    STALL_DETECTED = "stall.detected"
    PLAN_FINISHED = "plan.finished"
    PLAN_FAILED = "plan.failed"
    WORKFLOW_FINISHED = "workflow.finished"
    WORKFLOW_FAILED = "workflow.failed"
    MISSION_FINISHED = "mission.finished"
    MISSION_FAILED = "mission.failed"
    ASSET_EXPIRED = "asset.expired"


@dataclass(frozen=True)
class Rule:
    topic: Topic
    kind: str
    from_state: str | None = None
    to_state: str | None = None
    action: str | None = None  # data["action"] must equal it ("!x": must not)

    def matches(self, from_state: str | None, to_state: str | None, data: dict[str, Any]) -> bool:
        if self.from_state is not None and from_state != self.from_state:
            return False
        if self.to_state is not None and to_state != self.to_state:
            return False
        if self.action is None:
            return True
        action = data.get("action") if isinstance(data, dict) else None
        if self.action.startswith("!"):
            return action != self.action[1:]
        return action == self.action


REVIEW_ACTION = "review_requested"
T = Topic
RULES: tuple[Rule, ...] = (
    Rule(T.REVIEW_REQUESTED, AuditEvent.USER_REVIEWED, action=REVIEW_ACTION),
    Rule(T.REVIEW_REQUESTED, WorkflowEvent.APPROVAL_REQUESTED),
    Rule(T.REVIEW_REQUESTED, MissionEvent.MISSION_PROPOSED),
    Rule(T.REVIEW_REQUESTED, MissionEvent.HOP_PROPOSED),
    Rule(T.REVIEW_REQUESTED, MissionEvent.HOP_IMPLEMENTATION_PROPOSED),
    Rule(T.REVIEW_REQUESTED, MissionEvent.ASSET_PROPOSED),
    Rule(T.DECISION_MADE, AuditEvent.USER_REVIEWED, action="!" + REVIEW_ACTION),
    Rule(T.DECISION_MADE, WorkflowEvent.STEP_APPROVED),
    Rule(T.DECISION_MADE, WorkflowEvent.STEP_REJECTED),
    Rule(T.DECISION_MADE, MissionEvent.MISSION_REJECTED),
    Rule(T.DECISION_MADE, MissionEvent.HOP_PLAN_REJECTED),
    Rule(T.DECISION_MADE, MissionEvent.HOP_IMPLEMENTATION_REJECTED),
    Rule(T.DECISION_MADE, MissionEvent.ASSET_REJECTED),
    Rule(T.DECISION_MADE, "mission_transitioned", from_state="PROPOSED", to_state="APPROVED"),
    Rule(T.DECISION_MADE, "hop_transitioned", "PLAN_PROPOSED", "READY_FOR_IMPLEMENTATION"),
    Rule(T.DECISION_MADE, "hop_transitioned", "IMPLEMENTATION_PROPOSED", "READY_FOR_EXECUTION"),
    Rule(T.DEADLINE_APPLIED, DecisionEvent.DEADLINE_APPLIED),
    Rule(T.ESCALATED, DecisionEvent.ESCALATED),
    Rule(T.ESCALATED, WorkflowEvent.ESCALATED),
    Rule(T.STALL_DETECTED, EngineEvent.PLAN_STALLED),
    Rule(T.PLAN_FINISHED, "plan_transitioned", to_state="completed"),
    Rule(T.PLAN_FAILED, "plan_transitioned", to_state="failed"),
    Rule(T.WORKFLOW_FINISHED, "workflow_transitioned", to_state="completed"),
    Rule(T.WORKFLOW_FAILED, "workflow_transitioned", to_state="failed"),
    Rule(T.MISSION_FINISHED, "mission_transitioned", to_state="COMPLETED"),
    Rule(T.MISSION_FAILED, "mission_transitioned", to_state="FAILED"),
    Rule(T.ASSET_EXPIRED, MissionEvent.ASSET_EXPIRED),
)


@dataclass(frozen=True)
class TopicFilter:
    """The rules of some topics, by event kind, for reading the log and matching what it returns."""

    by_kind: dict[str, tuple[Rule, ...]]

    @staticmethod
    def of(topics: Iterable[str]) -> TopicFilter:
        wanted = set(topics)
        by_kind: dict[str, list[Rule]] = {}
        for rule in RULES:
            if rule.topic.value in wanted:
                by_kind.setdefault(str(rule.kind), []).append(rule)
        return TopicFilter({k: tuple(v) for k, v in by_kind.items()})

    @property
    def kinds(self) -> list[str]:
        return sorted(self.by_kind)

    def topic_of(
        self, kind: str, from_state: str | None, to_state: str | None, data: dict[str, Any]
    ) -> Topic | None:
        for rule in self.by_kind.get(kind, ()):
            if rule.matches(from_state, to_state, data):
                return rule.topic
        return None
