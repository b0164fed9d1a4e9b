/**
 * What of the research plans is live: the plan list with the stall alerts and the review inbox
 * (core/liveList.ts), for as long as the dashboard is open, and one plan with its history (core/rootLive.ts).
 */
import {
  PlansDocument,
  PlanSummaryDocument,
  PlanUpdatedDocument,
  ReviewInboxDocument,
  StallAlertHistoryDocument,
  StallAlertsDocument,
} from '../../core/graphql.generated';
import { eventData } from '../../core/events';
import { nodesSide, type ListSource, type ListState } from '../../core/liveList';
import { subscribeFromSeq } from '../../core/resumable';
import type { RootSource } from '../../core/rootLive';
import type { PlanDetail, PlanSummary, ReviewRequest, StallAlert } from './api';
import { addAlert, touchesReviews } from './store';

export const PLAN_LIST_SIZE = 100;
export const INBOX_SIZE = 100;
/** Stalls read from the log when the page opens (the newest of them). */
export const ALERT_HISTORY = 50;

export interface PlansExtra {
  /** Newest first. */
  alerts: readonly StallAlert[];
  /** Steps awaiting a decision, oldest first; null until read. Read again after every event that may
   * add a step to it or take one out (the list's one rule: the latest read wins). */
  inbox: readonly ReviewRequest[] | null;
}

export type PlansState = ListState<PlanSummary, PlansExtra>;

export const plansSource: ListSource<PlanSummary, PlansExtra> = {
  rootType: 'plan',
  limit: PLAN_LIST_SIZE,
  readList: (http) => http.request(PlansDocument, { first: PLAN_LIST_SIZE }).then((r) => r.researchPlans),
  readRoot: (http, id) => http.request(PlanSummaryDocument, { id }).then((r) => r.researchPlan),
  // A plan's first event: plan_modified with the action "created" (services/plans/create.py).
  created: (e) => e.kind === 'plan_modified' && e.entityType === 'plan' && eventData(e).action === 'created',
  initial: { alerts: [], inbox: null },
  sides: {
    inbox: nodesSide<PlansExtra, ReviewRequest>(
      'inbox',
      (http) => http.request(ReviewInboxDocument, { first: INBOX_SIZE }).then((r) => r.reviewInbox),
      touchesReviews,
    ),
    // Stalls detected before the page opened, from the log; the stallAlerts subscription adds later ones
    // (it starts at the seq this read is at least as new as, so none is missed or doubled).
    alerts: {
      read: async (http) => ({
        alerts: (await http.request(StallAlertHistoryDocument, { first: ALERT_HISTORY })).stallAlerts.edges.map((e) => e.node),
      }),
      touchedBy: () => false,
    },
  },
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
