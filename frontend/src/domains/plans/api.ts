/** The GraphQL documents and result types of the research-plan views. */
import type { LoggedEvent } from '../../core/events';
import type { UserError } from '../../core/userErrors';

export interface StepCounts {
  pending: number;
  inProgress: number;
  awaitingInput: number;
  completed: number;
  skipped: number;
  failed: number;
}

export interface PlanSummary {
  id: string;
  title: string;
  researchQuestion: string;
  status: string;
  progressPercent: number;
  stepCounts: StepCounts;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Step {
  id: string;
  order: number;
  stepType: string;
  title: string;
  instructions: string;
  status: string;
  resultSummary: string | null;
  confidence: number | null;
  failureReason: string | null;
  reviewSummary: string | null;
  reviewQuestions: string[] | null;
  startedAt: string | null;
  completedAt: string | null;
  updatedAt: string;
}

export interface BranchingCondition {
  id: string;
  afterStepId: string;
  field: string;
  op: string;
  value: unknown;
  action: string;
  targetStepId: string | null;
}

export interface PlanDetail extends PlanSummary {
  sessionId: string | null;
  stallThresholdSeconds: number | null;
  steps: Step[];
  branchingConditions: BranchingCondition[];
}

/** Plans' events are the generic log entries (core/events.ts). */
export type PlanEvent = LoggedEvent;

export interface StallAlert {
  seq: number;
  planId: string;
  thresholdSeconds: number;
  detectedAt: string;
  steps: { stepId: string; runningSeconds: number }[];
  plan: { title: string; researchQuestion: string; status: string } | null;
}

export interface ReviewRequest {
  waitingSince: string;
  plan: { id: string; title: string; researchQuestion: string; status: string };
  step: Step;
}

const SUMMARY = `id title researchQuestion status progressPercent failureReason createdAt updatedAt
  stepCounts { pending inProgress awaitingInput completed skipped failed }`;

const STEP = `id order stepType title instructions status resultSummary confidence failureReason
  reviewSummary reviewQuestions startedAt completedAt updatedAt`;

export const LATEST_SEQ = 'query LatestSeq { latestSeq }';

export const PLANS = `query Plans($first: Int!) {
  researchPlans(first: $first) { totalCount edges { node { ${SUMMARY} } } }
}`;

export const PLAN_SUMMARY = `query PlanSummary($id: ID!) { researchPlan(id: $id) { ${SUMMARY} } }`;

export const STALL_ALERTS = `subscription StallAlerts($after: Int) {
  stallAlerts(after: $after) {
    seq planId thresholdSeconds detectedAt steps { stepId runningSeconds }
    plan { title researchQuestion status }
  }
}`;

export const PLAN_UPDATED = `subscription PlanUpdated($id: ID!) {
  researchPlanUpdated(id: $id) {
    ${SUMMARY} sessionId stallThresholdSeconds
    steps { ${STEP} }
    branchingConditions { id afterStepId field op value action targetStepId }
  }
}`;

export const REVIEW_INBOX = `query ReviewInbox($first: Int!) {
  reviewInbox(first: $first) {
    totalCount
    edges { node { waitingSince plan { id title researchQuestion status } step { ${STEP} } } }
  }
}`;

export const DECIDE = `mutation Decide($stepId: ID!, $decision: UserDecision!, $feedback: String) {
  submitUserDecision(stepId: $stepId, decision: $decision, feedback: $feedback) {
    plan { id status }
    step { id status instructions }
    userErrors { code message field entity fromState toState }
  }
}`;

export type Decision = 'APPROVE' | 'REJECT' | 'MODIFY' | 'SKIP';

export interface DecideResult {
  submitUserDecision: {
    plan: { id: string; status: string } | null;
    step: { id: string; status: string; instructions: string } | null;
    userErrors: UserError[];
  };
}
