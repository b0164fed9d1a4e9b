"""GraphQL documents the workflow API tests send (the workflow tutorial shows the same operations)."""

from __future__ import annotations

from typing import Any

ERRORS = "userErrors { code message field entity fromState toState }"
STEP_FIELDS = """
  id name position status dependsOn agent timeout onFailure approval blockedOn attempt claimedBy
  nextAttemptAt timeoutAt lastError lastErrorCategory output completionOrder
  retryPolicy { maxRetries backoff initialDelay maxDelay retryOn isDefault }
  compensation { action agent }
"""
WORKFLOW_FIELDS = f"""
  id name status outcome failurePolicy timeout failureReason
  stepCounts {{ pending running completed failed skipped }}
  steps {{ totalCount edges {{ node {{ {STEP_FIELDS} }} }} }}
  compensations {{ position stepName action agent status error }}
"""
COMPENSATION_FIELDS = "id stepName position action agent status error"

CREATE = f"""
mutation Create($input: CreateWorkflowInput!) {{
  createWorkflow(input: $input) {{
    workflow {{ {WORKFLOW_FIELDS} }}
    warnings {{ code message field }}
    {ERRORS}
  }}
}}
"""

CREATE_FROM_YAML = f"""
mutation CreateYaml($yaml: String!, $name: String) {{
  createWorkflowFromYaml(yaml: $yaml, name: $name) {{
    workflow {{ {WORKFLOW_FIELDS} definitionYaml }}
    warnings {{ code message field }}
    {ERRORS}
  }}
}}
"""

START = f"""
mutation Start($id: ID!) {{
  startWorkflow(workflowId: $id) {{ workflow {{ id status queuedAt startedAt timeoutAt }} {ERRORS} }}
}}
"""

CLAIM = f"""
mutation Claim($agent: String!, $workflowId: ID) {{
  claimWorkflowStep(agent: $agent, workflowId: $workflowId) {{
    outcome
    workflow {{ id status }}
    step {{ {STEP_FIELDS} }}
    compensation {{ {COMPENSATION_FIELDS} }}
    {ERRORS}
  }}
}}
"""

COMPLETE = f"""
mutation Complete($stepId: ID!, $agent: String!, $output: JSON) {{
  completeWorkflowStep(stepId: $stepId, agent: $agent, output: $output) {{
    workflow {{ id status outcome }} step {{ id name status output completionOrder }} {ERRORS}
  }}
}}
"""

FAIL = f"""
mutation Fail($stepId: ID!, $agent: String!, $category: WorkflowErrorCategory!, $message: String!) {{
  failWorkflowStep(stepId: $stepId, agent: $agent, category: $category, message: $message) {{
    workflow {{ id status outcome failureReason }}
    step {{ id name status attempt nextAttemptAt lastError lastErrorCategory blockedOn }}
    {ERRORS}
  }}
}}
"""

HEARTBEAT = f"""
mutation Beat($stepId: ID!, $agent: String!) {{
  heartbeatWorkflowStep(stepId: $stepId, agent: $agent) {{ step {{ id status timeoutAt }} {ERRORS} }}
}}
"""

APPROVE = f"""
mutation Approve($stepId: ID!, $comment: String) {{
  approveWorkflowStep(stepId: $stepId, comment: $comment) {{
    workflow {{ id status }} step {{ id status blockedOn }} {ERRORS}
  }}
}}
"""

REJECT = f"""
mutation Reject($stepId: ID!, $reason: String!) {{
  rejectWorkflowStep(stepId: $stepId, reason: $reason) {{
    workflow {{ id status outcome }} step {{ id status lastError }} {ERRORS}
  }}
}}
"""

COMPLETE_COMPENSATION = f"""
mutation Undo($id: ID!, $agent: String!) {{
  completeWorkflowCompensation(compensationId: $id, agent: $agent) {{
    workflow {{ id status outcome }} compensation {{ {COMPENSATION_FIELDS} }} alreadyReported {ERRORS}
  }}
}}
"""

FAIL_COMPENSATION = f"""
mutation UndoFailed($id: ID!, $agent: String!, $message: String!) {{
  failWorkflowCompensation(compensationId: $id, agent: $agent, message: $message) {{
    workflow {{ id status outcome }} compensation {{ {COMPENSATION_FIELDS} }} alreadyReported {ERRORS}
  }}
}}
"""

WORKFLOW = f"query One($id: ID!) {{ workflow(id: $id) {{ {WORKFLOW_FIELDS} }} }}"

WORKFLOWS = """
query List($first: Int!, $after: String, $status: [WorkflowStatus!]) {
  workflows(first: $first, after: $after, status: $status) {
    totalCount edges { cursor node { id name status } } pageInfo { hasNextPage endCursor }
  }
}
"""

STEPS_PAGE = """
query Steps($id: ID!, $first: Int!, $after: String) {
  workflow(id: $id) {
    steps(first: $first, after: $after) {
      totalCount edges { cursor node { name } } pageInfo { hasNextPage endCursor }
    }
  }
}
"""

AWAITING_REVIEW = """
query Inbox {
  workflowStepsAwaitingReview { totalCount edges { node { id name blockedOn workflow { id status } } } }
}
"""

WORKFLOW_UPDATED = """
subscription Watch($id: ID!) {
  workflowUpdated(id: $id) {
    id status outcome
    steps { edges { node { name status attempt blockedOn } } }
    compensations { stepName status }
  }
}
"""


def steps_by_name(workflow: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["node"]["name"]: e["node"] for e in workflow["steps"]["edges"]}
