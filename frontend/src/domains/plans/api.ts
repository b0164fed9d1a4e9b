/**
 * The research-plan views' result types, named after what they show. Each is the generated type of a
 * fragment or operation in operations.graphql (core/graphql.generated.ts, `npm run codegen`).
 */
import type { LoggedEvent } from '../../core/events';
import type {
  PlanStepFieldsFragment,
  PlanSummaryFieldsFragment,
  PlanUpdatedSubscription,
  ReviewInboxQuery,
  StallAlertsSubscription,
  UserDecision,
} from '../../core/graphql.generated';

export type PlanSummary = PlanSummaryFieldsFragment;
export type StepCounts = PlanSummary['stepCounts'];
export type Step = PlanStepFieldsFragment;
export type PlanDetail = PlanUpdatedSubscription['researchPlanUpdated'];
export type BranchingCondition = PlanDetail['branchingConditions'][number];

/** Plans' events are the generic log entries (core/events.ts). */
export type PlanEvent = LoggedEvent;

export type StallAlert = StallAlertsSubscription['stallAlerts'];
export type ReviewRequest = ReviewInboxQuery['reviewInbox']['edges'][number]['node'];

export type Decision = UserDecision;
