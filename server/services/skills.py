"""Skill executions and research outputs (seed 003)."""

from __future__ import annotations

import uuid

from ..db.models import ResearchOutput, SkillExecution
from ..events.kinds import AuditEvent, EngineEvent
from ..limits import SHORT_TEXT
from ..machines.skill import SKILL_MACHINE, SkillStatus
from .aggregates import SKILL_EXECUTION, lock_root
from .plans.rows import lock_plan
from .runtime import Tx
from .transitions import enter
from .validation import Problems, check_text


async def start_skill_execution(
    tx: Tx,
    session_id: str,
    skill_name: str,
    output_media_type: str | None = None,
    output_formatting_instructions: str | None = None,
) -> SkillExecution:
    limit = tx.settings.max_text_bytes
    problems = Problems()
    problems.check(check_text, session_id, ["sessionId"], SHORT_TEXT, required=True)
    problems.check(check_text, skill_name, ["skillName"], SHORT_TEXT, required=True)
    problems.check(check_text, output_media_type, ["outputMediaType"], SHORT_TEXT)
    problems.check(check_text, output_formatting_instructions, ["outputFormattingInstructions"], limit)
    problems.raise_if_any()
    skill = SkillExecution(
        id=str(uuid.uuid4()),
        tenant_id=tx.tenant_id,
        session_id=session_id,
        skill_name=skill_name,
        status=SkillStatus.STARTED.value,
        output_media_type=output_media_type,
        output_formatting_instructions=output_formatting_instructions,
        started_at=tx.now,
        updated_at=tx.now,
    )
    tx.session.add(skill)
    tx.events.record(
        AuditEvent.SKILL_STARTED,
        entity_type="skill_execution",
        entity_id=skill.id,
        root_type="skill_execution",
        root_id=skill.id,
        to_state=skill.status,
        data={"sessionId": session_id, "skillName": skill_name},
    )
    return skill


async def complete_skill_execution(
    tx: Tx, skill_execution_id: str, result_summary: str | None
) -> SkillExecution:
    check_text(result_summary, ["resultSummary"], tx.settings.max_text_bytes)
    skill = await lock_root(tx, SKILL_EXECUTION, skill_execution_id)
    root_type, root_id = ("plan", skill.plan_id) if skill.plan_id else ("skill_execution", skill.id)
    enter(tx, SKILL_MACHINE, skill, SkillStatus.COMPLETED, root_type=root_type, root_id=root_id)
    skill.result_summary = result_summary
    tx.events.record(
        AuditEvent.SKILL_COMPLETED,
        entity_type="skill_execution",
        entity_id=skill.id,
        root_type=root_type,
        root_id=root_id,
        data={"skillName": skill.skill_name, "planId": skill.plan_id},
    )
    return skill


async def store_research_output(
    tx: Tx, plan_id: str, content: str, media_type: str, title: str = ""
) -> ResearchOutput:
    problems = Problems()
    problems.check(check_text, content, ["content"], tx.settings.max_result_bytes, required=True)
    problems.check(check_text, media_type, ["mediaType"], SHORT_TEXT, required=True)
    problems.check(check_text, title, ["title"], tx.settings.max_text_bytes, short=True)
    problems.raise_if_any()
    plan = await lock_plan(tx, plan_id)
    output = ResearchOutput(
        id=str(uuid.uuid4()),
        tenant_id=tx.tenant_id,
        plan_id=plan.id,
        title=title,
        media_type=media_type,
        content=content,
        created_at=tx.now,
    )
    tx.session.add(output)
    tx.events.record(
        EngineEvent.RESEARCH_OUTPUT_STORED,
        entity_type="research_output",
        entity_id=output.id,
        root_type="plan",
        root_id=plan.id,
        data={"mediaType": media_type, "bytes": len(content.encode()), "planStatus": plan.status},
    )
    return output
