"""GraphQL documents the API tests send (the same operations the tutorial shows)."""

PLAN_FIELDS = """
  id status title researchQuestion failureReason sessionId progressPercent
  stepCounts { pending inProgress awaitingInput completed skipped failed }
  steps { id order stepType status instructions resultSummary confidence startedAt completedAt }
"""

CREATE_PLAN = f"""
mutation Create($input: CreateResearchPlanInput!) {{
  createResearchPlan(input: $input) {{
    plan {{ {PLAN_FIELDS} }}
    stepIds
    firstStep {{ id order stepType instructions status }}
    userErrors {{ code message field entity fromState toState }}
  }}
}}
"""

START_NEXT_STEP = f"""
mutation Next($planId: ID!, $sessionId: String) {{
  startNextStep(planId: $planId, sessionId: $sessionId) {{
    outcome
    plan {{ {PLAN_FIELDS} }}
    step {{ id order stepType instructions status }}
    inProgressCount failedCount
    outputMediaType outputFormattingInstructions planFormattingNotes
    stepFormattingNotes {{ stepId order notes }}
    userErrors {{ code message field entity fromState toState }}
  }}
}}
"""

SUBMIT_RESULT = f"""
mutation Submit($input: SubmitStepResultInput!) {{
  submitStepResult(input: $input) {{
    plan {{ {PLAN_FIELDS} }}
    step {{ id status resultSummary confidence }}
    branchFired {{ id action field op }}
    skippedStepIds
    userErrors {{ code message field entity fromState toState }}
  }}
}}
"""

REQUEST_REVIEW = """
mutation Review($stepId: ID!, $summary: String!, $questions: [String!]) {
  requestUserReview(stepId: $stepId, summary: $summary, questions: $questions) {
    plan { id status }
    step { id status }
    userErrors { code message field entity fromState toState }
  }
}
"""

DECIDE = """
mutation Decide($stepId: ID!, $decision: UserDecision!, $feedback: String) {
  submitUserDecision(stepId: $stepId, decision: $decision, feedback: $feedback) {
    plan { id status }
    step { id status instructions }
    userErrors { code message field entity fromState toState }
  }
}
"""

MODIFY = f"""
mutation Modify($input: ModifyPlanInput!) {{
  modifyPlan(input: $input) {{
    plan {{ {PLAN_FIELDS} }}
    affectedStepIds
    userErrors {{ code message field entity fromState toState }}
  }}
}}
"""

RETRY = """
mutation Retry($stepId: ID!) {
  retryStep(stepId: $stepId) {
    plan { id status }
    step { id status }
    userErrors { code message field entity fromState toState }
  }
}
"""

FAIL_PLAN = """
mutation FailPlan($planId: ID!, $reason: String!) {
  failPlan(planId: $planId, reason: $reason) {
    plan { id status failureReason }
    userErrors { code message field entity fromState toState }
  }
}
"""

START_SKILL = """
mutation StartSkill($sessionId: String!, $skillName: String!, $mediaType: String, $instructions: String) {
  startSkillExecution(sessionId: $sessionId, skillName: $skillName, outputMediaType: $mediaType,
                      outputFormattingInstructions: $instructions) {
    skillExecution { id status sessionId planId }
    userErrors { code message field }
  }
}
"""

COMPLETE_SKILL = """
mutation CompleteSkill($id: ID!, $summary: String) {
  completeSkillExecution(skillExecutionId: $id, resultSummary: $summary) {
    skillExecution { id status planId completedAt }
    userErrors { code message field entity fromState toState }
  }
}
"""

STORE_OUTPUT = """
mutation Store($planId: ID!, $content: String!, $mediaType: String!, $title: String!) {
  storeResearchOutput(planId: $planId, content: $content, mediaType: $mediaType, title: $title) {
    output { id planId mediaType title content }
    userErrors { code message field }
  }
}
"""

PLAN_STATUS = """
query Status($planId: ID!, $threshold: Float) {
  planStatus(planId: $planId, stallThresholdSeconds: $threshold) {
    status derivedStatus progressPercent stalled stalledStepIds stallThresholdSeconds totalSteps
    counts { pending inProgress awaitingInput completed skipped failed }
  }
}
"""

EVENTS = """
query Events($rootId: ID, $after: Int!, $first: Int!) {
  events(rootId: $rootId, after: $after, first: $first) {
    edges { cursor node { seq kind entityType entityId rootId fromState toState actor data } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


def plan_input(n_steps: int = 3, **extra: object) -> dict[str, object]:
    steps = [
        {"stepType": t, "instructions": f"step {i + 1}: do the {t.lower()} work"}
        for i, t in enumerate(["SEARCH", "ANALYZE", "SYNTHESIZE", "CRITIQUE", "EXTRACT", "CUSTOM"][:n_steps])
    ]
    return {"researchQuestion": "What limits battery life in cold weather?", "steps": steps, **extra}
