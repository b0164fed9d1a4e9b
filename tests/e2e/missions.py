"""Helpers for the mission views' browser tests: drive a mission through the API, as an agent would."""

from __future__ import annotations

from typing import Any

from tests.api import mission_operations as ops
from tests.conftest import GraphQLClient


async def act(client: GraphQLClient, document: str, variables: dict[str, Any]) -> dict[str, Any]:
    """Run one mission mutation, assert it had no userErrors, return its payload."""
    data = await client.execute(document, variables)
    (payload,) = data.values()
    assert payload["userErrors"] == [], payload
    result: dict[str, Any] = payload
    return result


async def register_search_tool(client: GraphQLClient) -> None:
    tool = {"name": "web_search", "description": "Searches the web.", "parameterSchema": ops.SEARCH_SCHEMA}
    await act(client, ops.REGISTER_TOOL, {"input": tool})


async def propose_mission(client: GraphQLClient, title: str, goal: str = "Explain why.") -> str:
    payload = await act(client, ops.PROPOSE_MISSION, {"input": {"title": title, "goal": goal}})
    return str(payload["mission"]["id"])


async def approve_mission(client: GraphQLClient, mission_id: str) -> None:
    await act(client, ops.mission_act("approveMission"), {"id": mission_id})


async def propose_hop(client: GraphQLClient, mission_id: str, name: str, *, final: bool) -> str:
    plan = f"{name}: search, then summarise."
    hop = {"missionId": mission_id, "name": name, "plan": plan, "isFinal": final}
    payload = await act(client, ops.PROPOSE_HOP, {"input": hop})
    return str(payload["hop"]["id"])


async def propose_implementation(client: GraphQLClient, hop_id: str, queries: list[str]) -> list[str]:
    steps = [{"name": f"Search {q}", "toolName": "web_search", "parameters": {"query": q}} for q in queries]
    payload = await act(client, ops.PROPOSE_IMPLEMENTATION, {"input": {"hopId": hop_id, "toolSteps": steps}})
    return [str(s["id"]) for s in payload["toolSteps"]]


async def complete_step(client: GraphQLClient, step_id: str, result: dict[str, Any]) -> dict[str, Any]:
    return await act(client, ops.COMPLETE_STEP, {"id": step_id, "result": result})


async def propose_asset(client: GraphQLClient, mission_id: str, name: str, ttl_seconds: float) -> str:
    asset = {"missionId": mission_id, "name": name, "ttlSeconds": ttl_seconds}
    payload = await act(client, ops.PROPOSE_ASSET, {"input": asset})
    return str(payload["asset"]["id"])


async def mission_status(client: GraphQLClient, mission_id: str) -> str:
    data = await client.execute(ops.MISSION_QUERY, {"id": mission_id})
    return str(data["mission"]["status"])
