"""One agent's session that calls every tool it lists at least once successfully and meets every refusal
code, through any client (tests/mcp/official_clients.py). Each success is checked against the output
schema the tool listed, each refusal for its shape: ``isError``, no structured content, the code first.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from server.auth import Principal, Role
from server.clock import SystemClock
from server.config import Settings
from server.db.engine import Database
from server.errors import ErrorCode
from server.services.missions import assets, implementation, proposals
from server.services.runtime import Runtime, unit_of_work
from tests.api import mission_operations as mops
from tests.mcp.helpers import refusal_errors, steps
from tests.mcp.official_clients import McpAgent
from tests.services.workflow_helpers import seed_4_3_yaml

MISSING = "00000000-0000-4000-8000-000000000000"


class Reviewer:
    """The decisions no MCP tool makes (GraphQL's), taken through the same services on the database."""

    def __init__(self, database_url: str, tenant: str) -> None:
        self.database_url = database_url
        self.principal = Principal(tenant, Role.REVIEWER, "reviewer")

    async def act(self, action: Any) -> None:
        db = Database(self.database_url)
        try:
            runtime = Runtime(db=db, clock=SystemClock(), settings=Settings(database_url=self.database_url))
            async with unit_of_work(runtime, self.principal) as tx:
                await action(tx)
        finally:
            await db.dispose()


@dataclass
class Session:
    agent: McpAgent
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    succeeded: set[str] = field(default_factory=set)
    refusals: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    async def start(self) -> None:
        self.tools = {t["name"]: t for t in await self.agent.list_tools()}

    async def ok(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        outcome = await self.agent.call(name, arguments)
        assert not outcome.is_error, (name, outcome.text)
        assert isinstance(outcome.data, dict), (name, outcome)
        schema = self.tools[name]["outputSchema"]
        problems = [e.message for e in Draft202012Validator(schema).iter_errors(outcome.data)]
        assert not problems, (name, problems)
        self.succeeded.add(name)
        return outcome.data

    async def refused(self, code: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        outcome = await self.agent.call(name, arguments)
        assert outcome.is_error, (name, outcome)
        assert outcome.data is None, (name, outcome.data)
        errors = refusal_errors(outcome.text)
        assert outcome.text.startswith(f"{code}: {errors[0]['message']}"), outcome.text
        assert errors[0]["code"] == code, errors
        self.refusals[name].add(code)
        return errors[0]

    @property
    def codes(self) -> set[str]:
        return {code for codes in self.refusals.values() for code in codes}


async def every_tool(agent: McpAgent, viewer: McpAgent, reviewer: Reviewer) -> Session:
    """Drives plans, workflows and missions; returns what succeeded and what was refused."""
    s = Session(agent)
    await s.start()
    await _plans(s)
    ended = await _workflows(s)
    await _workflow_controls(s, ended)
    await _missions(s, reviewer)
    seen = Session(viewer)
    await seen.start()
    await seen.refused(
        ErrorCode.FORBIDDEN, "create_research_plan", {"researchQuestion": "q", "steps": steps(1)}
    )
    await seen.refused(ErrorCode.FORBIDDEN, "cancel_workflow", {"workflowId": ended, "reason": "stop"})
    await seen.refused(ErrorCode.FORBIDDEN, "rerun_workflow", {"workflowId": ended})
    for name, codes in seen.refusals.items():
        s.refusals[name] |= codes
    return s


async def _plans(s: Session) -> None:
    await s.ok("start_skill_execution", {"sessionId": "s1", "skillName": "research"})
    plan = await s.ok("create_research_plan", {"researchQuestion": "q", "steps": steps(2), "sessionId": "s1"})
    plan_id = plan["planId"]
    await s.refused(
        ErrorCode.VALIDATION_FAILED, "create_research_plan", {"researchQuestion": "q", "steps": []}
    )
    await s.refused(ErrorCode.NOT_FOUND, "get_plan_status", {"planId": MISSING})
    first = (await s.ok("get_next_step", {"planId": plan_id}))["step"]
    await s.ok("get_step_context", {"stepId": first["stepId"]})
    await s.ok("request_user_review", {"stepId": first["stepId"], "summary": "look"})
    await s.refused(
        ErrorCode.INVALID_TRANSITION, "submit_step_result", {"stepId": first["stepId"], "resultSummary": "x"}
    )
    assert (await s.ok("get_next_step", {"planId": plan_id}))["status"] == "awaiting_review"
    await s.ok("submit_user_decision", {"stepId": first["stepId"], "decision": "approve"})
    decided = await s.ok("wait_for_decision", {"id": first["stepId"], "timeoutSeconds": 1})
    assert decided["status"] == "decided", decided
    await s.ok("modify_plan", {"planId": plan_id, "action": "add_steps", "steps": steps(1)})
    second = (await s.ok("get_next_step", {"planId": plan_id}))["step"]
    await s.ok(
        "modify_plan", {"planId": plan_id, "action": "fail_step", "stepId": second["stepId"], "reason": "no"}
    )
    await s.ok("retry_step", {"stepId": second["stepId"]})
    while (nxt := await s.ok("get_next_step", {"planId": plan_id}))["status"] == "started":
        await s.ok(
            "submit_step_result", {"stepId": nxt["step"]["stepId"], "resultSummary": "done", "confidence": 1}
        )
    assert nxt["status"] == "plan_complete", nxt
    await s.ok("store_research_output", {"planId": plan_id, "content": "# r", "mediaType": "text/markdown"})
    skill = await s.ok("start_skill_execution", {"sessionId": "s2", "skillName": "other"})
    await s.ok("complete_skill_execution", {"skillExecutionId": skill["skillExecutionId"]})
    await s.ok("get_plan_status", {"planId": plan_id})
    await s.ok("get_research_context", {"planId": plan_id})
    doomed = await s.ok("create_research_plan", {"researchQuestion": "q", "steps": steps(1)})
    await s.ok("fail_plan", {"planId": doomed["planId"], "reason": "abandoned"})


async def _workflows(s: Session) -> str:
    """Two workflows run to their end, compensated and failing to; the id of the last."""
    workflow_id = ""
    for failing_compensation in (False, True):
        created = await s.ok("create_workflow_from_yaml", {"yaml": seed_4_3_yaml()})
        workflow_id = created["workflow"]["workflowId"]
        await s.ok("start_workflow", {"workflowId": workflow_id})
        held = {}
        for worker in ("w1", "w2", "w3", "w4"):
            step = (await s.ok("claim_workflow_step", {"agent": worker, "workflowId": workflow_id}))["step"]
            held[step["name"]] = (step["stepId"], worker, step["attempt"])
        none = await s.ok("claim_workflow_step", {"agent": "w5", "workflowId": workflow_id})
        assert (none["outcome"], none["reason"]) == ("none", "nothing_ready"), none
        step_id, worker, attempt = held["create-account"]
        await s.ok("heartbeat_workflow_step", {"stepId": step_id, "agent": worker, "attempt": attempt})
        await s.refused(
            ErrorCode.CONFLICT, "complete_workflow_step", {"stepId": step_id, "agent": "intruder"}
        )
        await s.ok("complete_workflow_step", {"stepId": step_id, "agent": worker, "output": {"ok": 1}})
        step_id, worker, _ = held["provision-workspace"]
        failed = {"stepId": step_id, "agent": worker, "category": "validation", "message": "bad"}
        await s.ok("fail_workflow_step", failed)
        got = await s.ok("claim_workflow_step", {"agent": "growth-optimizer", "workflowId": workflow_id})
        comp = {"compensationId": got["compensation"]["compensationId"], "agent": "growth-optimizer"}
        if failing_compensation:
            await s.ok("fail_workflow_compensation", {**comp, "message": "locked"})
        else:
            await s.ok("complete_workflow_compensation", comp)
        await s.ok("get_workflow", {"workflowId": workflow_id})
    return workflow_id


async def _workflow_controls(s: Session, ended: str) -> None:
    """A person's controls: an ended workflow runs again as a new one, which is then cancelled."""
    await s.refused(ErrorCode.INVALID_TRANSITION, "cancel_workflow", {"workflowId": ended, "reason": "late"})
    rerun = await s.ok("rerun_workflow", {"workflowId": ended})
    new = rerun["workflow"]["workflowId"]
    assert (rerun["rerunOfId"], rerun["workflow"]["status"]) == (ended, "executing"), rerun
    assert new != ended
    await s.refused(ErrorCode.INVALID_TRANSITION, "rerun_workflow", {"workflowId": new})
    empty = await s.refused(ErrorCode.VALIDATION_FAILED, "cancel_workflow", {"workflowId": new, "reason": ""})
    assert empty["field"] == ["reason"], empty
    await s.refused(ErrorCode.NOT_FOUND, "cancel_workflow", {"workflowId": MISSING, "reason": "stop"})
    cancelled = await s.ok("cancel_workflow", {"workflowId": new, "reason": "wrong input"})
    assert cancelled["workflow"]["status"] == "failed", cancelled
    assert "wrong input" in cancelled["workflow"]["failureReason"], cancelled


async def _missions(s: Session, reviewer: Reviewer) -> None:
    await s.ok("register_tool", {"name": "search", "parameterSchema": mops.SEARCH_SCHEMA})
    mission_id = (await s.ok("propose_mission", {"title": "Scan", "goal": "Know"}))["mission"]["missionId"]
    await reviewer.act(lambda tx: proposals.approve_mission(tx, mission_id))
    hop_id = (await s.ok("propose_hop", {"missionId": mission_id, "name": "h1", "plan": "p"}))["hop"]["hopId"]
    await reviewer.act(lambda tx: proposals.approve_hop_plan(tx, hop_id))
    proposed = await s.ok(
        "propose_hop_implementation",
        {
            "hopId": hop_id,
            "toolSteps": [
                {"name": "ready", "toolName": "search", "parameters": {"query": "a"}},
                {"name": "later"},
            ],
        },
    )
    ready, later = (t["toolStepId"] for t in proposed["toolSteps"])
    await s.ok("select_tool", {"toolStepId": later, "toolName": "search"})
    await s.ok("configure_tool_step", {"toolStepId": later, "parameters": {"query": "b"}})
    await reviewer.act(lambda tx: implementation.approve_hop_implementation(tx, hop_id))
    await s.ok("start_hop", {"hopId": hop_id})
    await s.ok("complete_tool_step", {"toolStepId": ready, "result": {"hits": 1}})
    await s.ok("fail_tool_step", {"toolStepId": later, "reason": "timeout"})
    await s.ok("retry_tool_step", {"toolStepId": later})
    await s.ok("complete_tool_step", {"toolStepId": later})

    asset_id = (await s.ok("propose_asset", {"missionId": mission_id, "name": "report"}))["asset"]["assetId"]
    await reviewer.act(lambda tx: assets.accept_asset(tx, asset_id))
    await s.ok("start_asset_processing", {"assetId": asset_id})
    await s.ok("fail_asset", {"assetId": asset_id, "reason": "disk full"})
    assert (await s.ok("retry_asset", {"assetId": asset_id}))["asset"]["status"] == "IN_PROGRESS"
    await s.ok("complete_asset_processing", {"assetId": asset_id, "content": "a,b"})

    second = (await s.ok("propose_hop", {"missionId": mission_id, "name": "h2", "plan": "q"}))["hop"]["hopId"]
    cancelled = await s.ok("cancel_hop", {"hopId": second, "reason": "not needed"})
    assert (cancelled["hop"]["status"], cancelled["mission"]["status"]) == ("CANCELLED", "APPROVED")
    await s.ok("get_mission", {"missionId": mission_id})
    assert (await s.ok("cancel_mission", {"missionId": mission_id, "reason": "done"}))["mission"][
        "status"
    ] == "CANCELLED"
