/**
 * What of the research plans is live: the newest few plans with the newest stall alerts (core/liveList.ts)
 * while the overview shows them; the count of steps awaiting review (core/liveRead.ts) while a view shows
 * it (the Reviews page reads its pages again whenever the count is read again); one plan with its history
 * (core/rootLive.ts).
 */
import {
  PlanReviewCountDocument,
  PlansDocument,
  PlanSummaryDocument,
  PlanUpdatedDocument,
  StallAlertHistoryDocument,
  StallAlertsDocument,
} from '../../core/graphql.generated';
import { eventData } from '../../core/events';
import type { ListSource, ListState } from '../../core/liveList';
import type { ReadSource } from '../../core/liveRead';
import { subscribeFromSeq } from '../../core/resumable';
import type { RootSource } from '../../core/rootLive';
import { OVERVIEW_FEW } from '../../core/sections';
import type { PlanDetail, PlanSummary, StallAlert } from './api';
import { addAlert, touchesReviews } from './store';

/** The overview shows the newest few plans; the plans table pages through the rest. */
export const PLAN_LIST_SIZE = OVERVIEW_FEW;
/** Stalls read from the log when the overview opens (the newest of them, as many as it shows). */
export const ALERT_HISTORY = OVERVIEW_FEW;

export interface PlansExtra {
  /** Newest first. */
  alerts: readonly StallAlert[];
}

export type PlansState = ListState<PlanSummary, PlansExtra>;

export const plansSource: ListSource<PlanSummary, PlansExtra> = {
  rootType: 'plan',
  limit: PLAN_LIST_SIZE,
  readList: (http) => http.request(PlansDocument, { first: PLAN_LIST_SIZE }).then((r) => r.researchPlans),
  readRoot: (http, id) => http.request(PlanSummaryDocument, { id }).then((r) => r.researchPlan),
  // A plan's first event: plan_modified with the action "created" (services/plans/create.py).
  created: (e) => e.kind === 'plan_modified' && e.entityType === 'plan' && eventData(e).action === 'created',
  initial: { alerts: [] },
  sides: {
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
      onItem: (alert) => update((s) => addAlert(s, alert, ALERT_HISTORY)),
      onError: fail,
    }),
  ],
};

/** How many steps await a decision (the navigation badge): a count, no list. */
export const planReviewCountSource: ReadSource<number> = {
  rootType: 'plan',
  read: (http) => http.request(PlanReviewCountDocument).then((r) => r.reviewInbox.totalCount),
  touchedBy: touchesReviews,
};

/** One plan: `researchPlanUpdated(id)` snapshots and the plan's events. */
export function planSource(id: string): RootSource<PlanDetail> {
  return { id, operation: PlanUpdatedDocument, field: 'researchPlanUpdated', filter: { rootId: id } };
}
