"""GraphQL documents of the mission API tests (the mission tutorial uses the same operations)."""

from __future__ import annotations

from typing import Any

ERRORS = "userErrors { code message field entity fromState toState }"
MISSION = "id title goal status statusReason completedAt"
HOP = "id missionId sequence name isFinal status statusReason failedFrom"
STEP = "id hopId position name toolName parameters result status statusReason failedFrom"
ASSET = "id missionId name status statusReason expiresAt expiresInSeconds content"

REGISTER_TOOL = f"""
mutation($input: RegisterToolInput!) {{ registerTool(input: $input) {{
  tool {{ id name parameterSchema }} {ERRORS} }} }}
"""
PROPOSE_MISSION = f"""
mutation($input: ProposeMissionInput!) {{ proposeMission(input: $input) {{
  mission {{ {MISSION} }} {ERRORS} }} }}
"""
PROPOSE_HOP = f"""
mutation($input: ProposeHopInput!) {{ proposeHop(input: $input) {{
  mission {{ {MISSION} }} hop {{ {HOP} }} {ERRORS} }} }}
"""
PROPOSE_IMPLEMENTATION = f"""
mutation($input: ProposeHopImplementationInput!) {{ proposeHopImplementation(input: $input) {{
  mission {{ {MISSION} }} hop {{ {HOP} }} toolSteps {{ {STEP} }} {ERRORS} }} }}
"""
SELECT_TOOL = f"""
mutation($id: ID!, $tool: String!) {{ selectTool(toolStepId: $id, toolName: $tool) {{
  toolStep {{ {STEP} }} {ERRORS} }} }}
"""
CONFIGURE = f"""
mutation($id: ID!, $parameters: JSON!) {{ configureToolStep(toolStepId: $id, parameters: $parameters) {{
  toolStep {{ {STEP} }} {ERRORS} }} }}
"""
COMPLETE_STEP = f"""
mutation($id: ID!, $result: JSON) {{ completeToolStep(toolStepId: $id, result: $result) {{
  mission {{ {MISSION} }} hop {{ {HOP} }} toolStep {{ {STEP} }} {ERRORS} }} }}
"""
FAIL_STEP = f"""
mutation($id: ID!, $reason: String!) {{ failToolStep(toolStepId: $id, reason: $reason) {{
  mission {{ {MISSION} }} hop {{ {HOP} }} toolStep {{ {STEP} }} {ERRORS} }} }}
"""
RETRY_STEP = f"""
mutation($id: ID!) {{ retryToolStep(toolStepId: $id) {{
  mission {{ {MISSION} }} hop {{ {HOP} }} toolStep {{ {STEP} }} {ERRORS} }} }}
"""
PROPOSE_ASSET = f"""
mutation($input: ProposeAssetInput!) {{ proposeAsset(input: $input) {{ asset {{ {ASSET} }} {ERRORS} }} }}
"""
MISSION_QUERY = f"""
query($id: ID!, $first: Int, $after: String) {{ mission(id: $id) {{ {MISSION}
  currentHop {{ id status }}
  hops(first: $first, after: $after) {{ totalCount pageInfo {{ hasNextPage endCursor }}
    edges {{ cursor node {{ {HOP} toolSteps {{ totalCount edges {{ node {{ {STEP} }} }} }} }} }} }}
  assets {{ totalCount edges {{ node {{ {ASSET} }} }} }}
}} }}
"""
INBOX = """
query { missionReviewInbox { missions { id } hopPlans { id } hopImplementations { id } assets { id } } }
"""

SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string", "minLength": 1}},
    "required": ["query"],
}


def _act(name: str, id_arg: str, selection: str, reason: bool) -> str:
    """``name(<id_arg>: $id[, reason: $reason]) { selection userErrors }``."""
    variables = "$id: ID!, $reason: String!" if reason else "$id: ID!"
    args = f"{id_arg}: $id, reason: $reason" if reason else f"{id_arg}: $id"
    return f"mutation({variables}) {{ {name}({args}) {{ {selection} {ERRORS} }} }}"


def mission_act(name: str, reason: bool = False) -> str:
    """approveMission, rejectMission (reason), cancelMission (reason)."""
    return _act(name, "missionId", f"mission {{ {MISSION} }}", reason)


def hop_act(name: str, reason: bool = False) -> str:
    """approveHopPlan, rejectHopPlan, approveHopImplementation, startHop, retryHop, ..."""
    return _act(name, "hopId", f"mission {{ {MISSION} }} hop {{ {HOP} }} toolSteps {{ {STEP} }}", reason)


def asset_act(name: str, reason: bool = False) -> str:
    """acceptAsset, rejectAsset (reason), startAssetProcessing, failAsset (reason), retryAsset."""
    return _act(name, "assetId", f"asset {{ {ASSET} }}", reason)


def mission_events_query() -> str:
    return "query($id: ID!) { events(rootId: $id, after: 0, first: 100) { edges { node { seq kind } } } }"
