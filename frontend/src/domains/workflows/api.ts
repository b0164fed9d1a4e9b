/**
 * The workflow views' result types (seed 002), named after what they show. Each is the generated type of
 * a fragment or operation in operations.graphql (core/graphql.generated.ts, `npm run codegen`).
 */
import type {
  GateDecisionFieldsFragment,
  WorkflowGatesQuery,
  WorkflowStepFieldsFragment,
  WorkflowSummaryQuery,
  WorkflowUpdatedSubscription,
} from '../../core/graphql.generated';

/** The server's page cap (operations.graphql reads this many steps); the overview shows the newest this many. */
export const LIST_SIZE = 100;

export type WorkflowSummary = NonNullable<WorkflowSummaryQuery['workflow']>;
export type WorkflowStepCounts = WorkflowSummary['stepCounts'];
export type CompensationSummary = WorkflowSummary['compensations'][number];
export type WorkflowStep = WorkflowStepFieldsFragment;
export type WorkflowDetail = WorkflowUpdatedSubscription['workflowUpdated'];
export type Compensation = WorkflowDetail['compensations'][number];

/** A step that waits for a reviewer: an approval gate, or a step escalated by a governance error. */
export type GateRequest = WorkflowGatesQuery['workflowStepsAwaitingReview']['edges'][number]['node'];

export type GateDecision = 'APPROVE' | 'REJECT';
export type GateDecisionPayload = GateDecisionFieldsFragment;
