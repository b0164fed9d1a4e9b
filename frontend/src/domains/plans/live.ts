/**
 * What of the research plans is live: the plan list with the stall alerts (core/liveList.ts), for as long
 * as the dashboard is open, and one plan with its history (core/rootLive.ts).
 */
import {
  PlansDocument,
  PlanSummaryDocument,
  PlanUpdatedDocument,
  StallAlertsDocument,
} from '../../core/graphql.generated';
import type { ListSource, ListState } from '../../core/liveList';
import { subscribeFromSeq } from '../../core/resumable';
import type { RootSource } from '../../core/rootLive';
import type { PlanDetail, PlanSummary, StallAlert } from './api';
import { addAlert, touchesReviews } from './store';

export const PLAN_LIST_SIZE = 100;

export interface PlansExtra {
  /** Newest first. */
  alerts: readonly StallAlert[];
  /** Bumped whenever an event may have changed the review inbox. */
  reviewVersion: number;
}

export type PlansState = ListState<PlanSummary, PlansExtra>;

export const plansSource: ListSource<PlanSummary, PlansExtra> = {
  rootType: 'plan',
  readList: (http) => http.request(PlansDocument, { first: PLAN_LIST_SIZE }).then((r) => r.researchPlans),
  readRoot: (http, id) => http.request(PlanSummaryDocument, { id }).then((r) => r.researchPlan),
  initial: { alerts: [], reviewVersion: 0 },
  onEvent: (state, event) => (touchesReviews(event) ? { ...state, reviewVersion: state.reviewVersion + 1 } : state),
  follow: (client, after, update, fail) => [
    subscribeFromSeq(client, {
      operation: StallAlertsDocument,
      field: 'stallAlerts',
      after,
      onItem: (alert) => update((s) => addAlert(s, alert)),
      onError: fail,
    }),
  ],
};

/** One plan: `researchPlanUpdated(id)` snapshots and the plan's events. */
export function planSource(id: string): RootSource<PlanDetail> {
  return { id, operation: PlanUpdatedDocument, field: 'researchPlanUpdated', filter: { rootId: id } };
}
