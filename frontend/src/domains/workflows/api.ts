/** The GraphQL documents and result types of the workflow views (seed 002). */
import type { UserError } from '../../core/userErrors';

export interface WorkflowStepCounts {
  pending: number;
  running: number;
  completed: number;
  failed: number;
  skipped: number;
}

export interface CompensationSummary {
  position: number;
  stepName: string;
  status: string;
}

export interface WorkflowSummary {
  id: string;
  name: string;
  status: string;
  outcome: string | null;
  failurePolicy: string;
  timeout: string | null;
  timeoutAt: string | null;
  failureReason: string | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  stepCounts: WorkflowStepCounts;
  compensations: CompensationSummary[];
}

export interface RetryPolicy {
  maxRetries: number;
  backoff: string;
  initialDelay: string;
  maxDelay: string | null;
  retryOn: string[];
  isDefault: boolean;
}

export interface WorkflowStep {
  id: string;
  name: string;
  position: number;
  status: string;
  dependsOn: string[];
  agent: string | null;
  timeout: string | null;
  onFailure: string;
  approval: boolean;
  blockedOn: string | null;
  attempt: number;
  claimedBy: string | null;
  nextAttemptAt: string | null;
  timeoutAt: string | null;
  startedAt: string | null;
  completedAt: string | null;
  completionOrder: number | null;
  lastError: string | null;
  lastErrorCategory: string | null;
  output: unknown;
  retryPolicy: RetryPolicy;
  compensation: { action: string; agent: string } | null;
}

export interface Compensation extends CompensationSummary {
  id: string;
  stepId: string;
  action: string;
  agent: string;
  error: string | null;
  startedAt: string | null;
  completedAt: string | null;
}

export interface WorkflowDetail extends Omit<WorkflowSummary, 'compensations'> {
  queuedAt: string | null;
  steps: { totalCount: number; edges: { node: WorkflowStep }[] };
  compensations: Compensation[];
}

/** A step that waits for a reviewer: an approval gate, or a step escalated by a governance error. */
export interface GateRequest {
  id: string;
  name: string;
  blockedOn: string;
  lastError: string | null;
  startedAt: string | null;
  timeoutAt: string | null;
  workflow: { id: string; name: string; status: string } | null;
}

const SUMMARY = `id name status outcome failurePolicy timeout timeoutAt failureReason createdAt startedAt completedAt
  stepCounts { pending running completed failed skipped }`;

const STEP = `id name position status dependsOn agent timeout onFailure approval blockedOn attempt claimedBy
  nextAttemptAt timeoutAt startedAt completedAt completionOrder lastError lastErrorCategory output
  retryPolicy { maxRetries backoff initialDelay maxDelay retryOn isDefault }
  compensation { action agent }`;

/** The server's page cap; the overview shows the newest this many. */
export const LIST_SIZE = 100;

export const WORKFLOWS = `query Workflows($first: Int!) {
  workflows(first: $first) { totalCount edges { node { ${SUMMARY} compensations { position stepName status } } } }
}`;

export const WORKFLOW_SUMMARY = `query WorkflowSummary($id: ID!) {
  workflow(id: $id) { ${SUMMARY} compensations { position stepName status } }
}`;

export const WORKFLOW_UPDATED = `subscription WorkflowUpdated($id: ID!) {
  workflowUpdated(id: $id) {
    ${SUMMARY} queuedAt
    steps(first: ${LIST_SIZE}) { totalCount edges { node { ${STEP} } } }
    compensations { id stepId stepName position action agent status error startedAt completedAt }
  }
}`;

export const GATES = `query WorkflowGates($first: Int!) {
  workflowStepsAwaitingReview(first: $first) {
    totalCount
    edges { node { id name blockedOn lastError startedAt timeoutAt workflow { id name status } } }
  }
}`;

const DECIDED = `workflow { id status outcome } step { id status blockedOn }
    userErrors { code message field entity fromState toState }`;

export const APPROVE = `mutation ApproveGate($stepId: ID!, $comment: String) {
  approveWorkflowStep(stepId: $stepId, comment: $comment) { ${DECIDED} }
}`;

export const REJECT = `mutation RejectGate($stepId: ID!, $reason: String!) {
  rejectWorkflowStep(stepId: $stepId, reason: $reason) { ${DECIDED} }
}`;

export type GateDecision = 'APPROVE' | 'REJECT';

export interface GateDecisionPayload {
  workflow: { id: string; status: string; outcome: string | null } | null;
  step: { id: string; status: string; blockedOn: string | null } | null;
  userErrors: UserError[];
}
