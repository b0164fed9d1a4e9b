"""Skill executions (seed 003): started, then completed. The seeds give no other state."""

from __future__ import annotations

from enum import StrEnum

from .machine import Machine


class SkillStatus(StrEnum):
    STARTED = "started"
    COMPLETED = "completed"


SKILL_MACHINE = Machine(
    entity="skill_execution",
    initial=SkillStatus.STARTED,
    transitions={SkillStatus.STARTED: frozenset({SkillStatus.COMPLETED}), SkillStatus.COMPLETED: frozenset()},
    final=frozenset({SkillStatus.COMPLETED}),
    stamps={SkillStatus.COMPLETED: ("completed_at",)},
    description="A skill execution an agent session runs; a plan links to the session's latest one.",
)
