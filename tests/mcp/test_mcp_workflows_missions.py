"""Workflow workers and mission agents through MCP: the same services, states and refusals as GraphQL."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tests.api import mission_operations as mops
from tests.conftest import GraphQLClient, LiveServer
from tests.mcp.helpers import mcp_client, ok, refused
from tests.services.workflow_helpers import seed_4_3_yaml

COMPENSATING_AGENTS = ["data-pipeline", "product-analyst", "growth-optimizer"]


async def claim(client: Client, agent: str, workflow_id: str) -> dict[str, Any]:
    return await ok(client, "claim_workflow_step", {"agent": agent, "workflowId": workflow_id})


async def test_a_worker_runs_seed_4_3_through_mcp_and_its_compensation_undoes_it(
    live_server: LiveServer,
) -> None:
    async with mcp_client(live_server.url) as mcp:
        created = await ok(mcp, "create_workflow_from_yaml", {"yaml": seed_4_3_yaml()})
        workflow_id = created["workflow"]["workflowId"]
        assert created["workflow"]["status"] == "idle"
        assert len(created["steps"]) == 4
        started = await ok(mcp, "start_workflow", {"workflowId": workflow_id})
        assert started["workflow"]["status"] == "executing"

        held: dict[str, dict[str, Any]] = {}
        for worker in ("w1", "w2", "w3", "w4"):
            got = await claim(mcp, worker, workflow_id)
            assert got["outcome"] == "step"
            held[got["step"]["name"]] = {**got["step"], "id": got["step"]["stepId"], "agent": worker}
        assert (await claim(mcp, "w5", workflow_id))["outcome"] == "none"

        account = held["create-account"]
        beat = await ok(
            mcp,
            "heartbeat_workflow_step",
            {"stepId": account["id"], "agent": account["agent"], "attempt": account["attempt"]},
        )
        assert beat["step"]["status"] == "running"
        # Another agent's report is refused as GraphQL refuses it, and changes nothing.
        error = await refused(mcp, "complete_workflow_step", {"stepId": account["id"], "agent": "intruder"})
        assert (error["code"], error["field"]) == ("CONFLICT", ["agent"])

        for name in ("create-account", "provision-workspace"):
            done = await ok(
                mcp,
                "complete_workflow_step",
                {"stepId": held[name]["id"], "agent": held[name]["agent"], "output": {"ok": name}},
            )
            assert done["step"]["status"] == "completed"
            assert done["step"]["output"] == {"ok": name}
        failed = await ok(
            mcp,
            "fail_workflow_step",
            {
                "stepId": held["setup-analytics"]["id"],
                "agent": held["setup-analytics"]["agent"],
                "category": "validation",
                "message": "bad config",
            },
        )
        assert failed["workflow"]["status"] == "compensating"

        undone = []
        for _ in range(5):
            for agent in COMPENSATING_AGENTS:
                got = await claim(mcp, agent, workflow_id)
                if got["outcome"] == "compensation":
                    comp = got["compensation"]
                    args = {"compensationId": comp["compensationId"], "agent": agent}
                    first = await ok(mcp, "complete_workflow_compensation", args)
                    assert first["alreadyReported"] is False
                    again = await ok(mcp, "complete_workflow_compensation", args)
                    assert again["alreadyReported"] is True
                    undone.append((agent, comp["stepName"]))
        assert undone == [("product-analyst", "provision-workspace"), ("growth-optimizer", "create-account")]

        shown = await ok(mcp, "get_workflow", {"workflowId": workflow_id})
        assert (shown["workflow"]["status"], shown["workflow"]["outcome"]) == ("completed", "rolled_back")
        assert [c["status"] for c in shown["compensations"]] == ["completed", "completed"]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_a_failed_compensation_ends_the_workflow_partially_rolled_back(live_server: LiveServer) -> None:
    async with mcp_client(live_server.url) as mcp:
        created = await ok(mcp, "create_workflow_from_yaml", {"yaml": seed_4_3_yaml(), "name": "renamed"})
        workflow_id = created["workflow"]["workflowId"]
        assert created["workflow"]["name"] == "renamed"
        await ok(mcp, "start_workflow", {"workflowId": workflow_id})
        held = {}
        for worker in ("w1", "w2", "w3", "w4"):
            got = (await claim(mcp, worker, workflow_id))["step"]
            held[got["name"]] = (got["stepId"], worker)
        step_id, worker = held["create-account"]
        await ok(mcp, "complete_workflow_step", {"stepId": step_id, "agent": worker})
        step_id, worker = held["provision-workspace"]
        await ok(
            mcp,
            "fail_workflow_step",
            {"stepId": step_id, "agent": worker, "category": "validation", "message": "no"},
        )
        comp = (await claim(mcp, "growth-optimizer", workflow_id))["compensation"]
        failed = await ok(
            mcp,
            "fail_workflow_compensation",
            {"compensationId": comp["compensationId"], "agent": "growth-optimizer", "message": "locked"},
        )
        assert (failed["workflow"]["status"], failed["workflow"]["outcome"]) == (
            "failed",
            "partially_rolled_back",
        )


async def test_an_agent_runs_a_mission_through_mcp_while_a_person_approves_each_stage(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    async with mcp_client(live_server.url) as mcp:
        await ok(mcp, "register_tool", {"name": "search", "parameterSchema": mops.SEARCH_SCHEMA})
        proposed = await ok(mcp, "propose_mission", {"title": "Market scan", "goal": "Know the market"})
        mission_id = proposed["mission"]["missionId"]
        assert proposed["mission"]["status"] == "PROPOSED"
        # Not approved yet: proposing a hop is refused, as in GraphQL.
        error = await refused(mcp, "propose_hop", {"missionId": mission_id, "name": "h", "plan": "p"})
        assert error["code"] == "INVALID_TRANSITION"
        await client.execute(mops.mission_act("approveMission"), {"id": mission_id})

        hop = (
            await ok(
                mcp,
                "propose_hop",
                {"missionId": mission_id, "name": "Gather", "plan": "search", "isFinal": True},
            )
        )["hop"]
        assert hop["status"] == "PLAN_PROPOSED"
        await client.execute(mops.hop_act("approveHopPlan"), {"id": hop["hopId"]})
        implemented = await ok(
            mcp,
            "propose_hop_implementation",
            {
                "hopId": hop["hopId"],
                "toolSteps": [
                    {"name": "configured", "toolName": "search", "parameters": {"query": "a"}},
                    {"name": "chosen later"},
                ],
            },
        )
        first, second = implemented["toolSteps"]
        assert (first["status"], second["status"]) == ("READY_TO_EXECUTE", "PROPOSED")
        selected = await ok(mcp, "select_tool", {"toolStepId": second["toolStepId"], "toolName": "search"})
        assert selected["toolStep"]["status"] == "READY_TO_CONFIGURE"
        error = await refused(
            mcp, "configure_tool_step", {"toolStepId": second["toolStepId"], "parameters": {"query": ""}}
        )
        assert (error["code"], error["field"][0]) == ("VALIDATION_FAILED", "parameters")
        await ok(
            mcp, "configure_tool_step", {"toolStepId": second["toolStepId"], "parameters": {"query": "b"}}
        )
        await client.execute(mops.hop_act("approveHopImplementation"), {"id": hop["hopId"]})
        started = await ok(mcp, "start_hop", {"hopId": hop["hopId"]})  # dev mode: the admin may
        assert started["mission"]["status"] == "EXECUTING_HOP"

        asset = (await ok(mcp, "propose_asset", {"missionId": mission_id, "name": "report"}))["asset"]
        assert asset["status"] == "PROPOSED"
        await ok(mcp, "complete_tool_step", {"toolStepId": first["toolStepId"], "result": {"hits": 3}})
        failed = await ok(mcp, "fail_tool_step", {"toolStepId": second["toolStepId"], "reason": "timeout"})
        assert failed["mission"]["status"] == "FAILED"
        await ok(mcp, "retry_tool_step", {"toolStepId": second["toolStepId"]})
        done = await ok(mcp, "complete_tool_step", {"toolStepId": second["toolStepId"], "result": None})
        assert (done["hop"]["status"], done["mission"]["status"]) == ("COMPLETED", "COMPLETED")

        shown = await ok(mcp, "get_mission", {"missionId": mission_id})
        assert [h["status"] for h in shown["hops"]] == ["COMPLETED"]
        assert [s["result"] for s in shown["toolSteps"]] == [{"hits": 3}, None]
        assert [a["name"] for a in shown["assets"]] == ["report"]


async def test_claim_workflow_step_hands_out_a_batch_with_max_steps(live_server: LiveServer) -> None:
    independent = "".join(f"  - name: s{i}\n" for i in range(5))
    yaml = "steps:\n" + independent + "  - name: last\n    dependsOn: [s0]\n"
    async with mcp_client(live_server.url) as mcp:
        workflow_id = (await ok(mcp, "create_workflow_from_yaml", {"yaml": yaml, "name": "batch"}))[
            "workflow"
        ]["workflowId"]
        await ok(mcp, "start_workflow", {"workflowId": workflow_id})
        batch = await ok(mcp, "claim_workflow_step", {"agent": "w", "workflowId": workflow_id, "maxSteps": 4})
        assert batch["outcome"] == "step"
        assert [s["name"] for s in batch["steps"]] == ["s0", "s1", "s2", "s3"]
        assert batch["step"] == batch["steps"][0]
        assert {(s["status"], s["attempt"], s["claimedBy"]) for s in batch["steps"]} == {("running", 1, "w")}
        one = await ok(mcp, "claim_workflow_step", {"agent": "w", "workflowId": workflow_id})
        assert [s["name"] for s in one["steps"]] == ["s4"]  # `last` waits for s0
        error = await refused(mcp, "claim_workflow_step", {"agent": "w", "maxSteps": 101})
        assert (error["code"], error["field"]) == ("VALIDATION_FAILED", ["maxSteps"])
        error = await refused(mcp, "claim_workflow_step", {"agent": "w", "maxSteps": 0})
        assert (error["code"], error["field"]) == ("VALIDATION_FAILED", ["maxSteps"])
