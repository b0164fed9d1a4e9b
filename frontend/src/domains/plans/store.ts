/** Pure state for the plan views: the plan list, stall alerts, and which events change what. */
import type { PlanEvent, PlanSummary, StallAlert } from './api';

export interface PlansState {
  loaded: boolean;
  byId: Readonly<Record<string, PlanSummary>>;
  /** Newest first, as the API lists them. */
  order: readonly string[];
  alerts: readonly StallAlert[];
  /** Bumped whenever an event may have changed the review inbox. */
  reviewVersion: number;
  error: string | null;
}

export const initialPlans: PlansState = {
  loaded: false,
  byId: {},
  order: [],
  alerts: [],
  reviewVersion: 0,
  error: null,
};

function newestFirst(a: PlanSummary, b: PlanSummary): number {
  return b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
}

/** Insert or replace plans; a plan older than what is held (by updatedAt) never overwrites newer data. */
export function upsertPlans(state: PlansState, plans: readonly PlanSummary[]): PlansState {
  const byId = { ...state.byId };
  let changed = false;
  for (const plan of plans) {
    const held = byId[plan.id];
    if (held && held.updatedAt > plan.updatedAt) continue;
    byId[plan.id] = plan;
    changed = true;
  }
  if (!changed) return state;
  const order = Object.values(byId)
    .sort(newestFirst)
    .map((p) => p.id);
  return { ...state, byId, order };
}

/** Newest first, one entry per seq. */
export function addAlert(state: PlansState, alert: StallAlert): PlansState {
  if (state.alerts.some((a) => a.seq === alert.seq)) return state;
  return { ...state, alerts: [alert, ...state.alerts].sort((a, b) => b.seq - a.seq) };
}

export function plansInOrder(state: PlansState): PlanSummary[] {
  return state.order.flatMap((id) => (state.byId[id] ? [state.byId[id]] : []));
}

export function waitingForReview(state: PlansState): number {
  return Object.values(state.byId).reduce((n, p) => n + p.stepCounts.awaitingInput, 0);
}

/** Events that can add a step to the inbox or take one out of it. */
export function touchesReviews(event: PlanEvent): boolean {
  if (event.kind === 'user_reviewed') return true;
  return event.entityType === 'step' && (event.fromState === 'awaiting_input' || event.toState === 'awaiting_input');
}
